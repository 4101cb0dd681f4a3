// The slab-to-batch conversions: rows concatenated on the host in parallel, then copied to the
// device, or handed to the graph batch and embedding gather kernels.
#include "torch_ext/batching.h"

#include <oneapi/tbb/parallel_for.h>

#include <cstring>

namespace compiler_gym::batching {
namespace {

// The rows of a variable slab back to back, as elements of T, in parallel; offsets [rows + 1]
// count values of `width` elements (a row of a {-1, D} space is D elements per value).
template <typename T>
void ConcatenateRows(const Slab& slab, size_t width, std::vector<T>* values,
                     std::vector<int64_t>* offsets) {
  const size_t value_bytes = width * sizeof(T);
  offsets->assign(slab.rows() + 1, 0);
  for (int64_t row = 0; row < slab.rows(); ++row) {
    (*offsets)[row + 1] =
        (*offsets)[row] + static_cast<int64_t>(slab.RowBytes(row).size() / value_bytes);
  }
  values->resize(offsets->back() * width);
  oneapi::tbb::parallel_for(int64_t{0}, slab.rows(), [&](int64_t row) {
    const std::string& bytes = slab.RowBytes(row);
    std::memcpy(values->data() + (*offsets)[row] * width, bytes.data(), bytes.size());
  });
}

}  // namespace

StatusOr<RaggedBatch> PackRagged(const Slab& slab, kernels::Device device, void* stream) {
  const SpaceSpec& spec = slab.spec();
  if (slab.fixed() || spec.kind == SpaceKind::kGraph || spec.dtype == DType::kNone) {
    return InvalidArgument("observation " + spec.name + " is not a ragged numeric space");
  }
  RaggedBatch out;
  out.rows = slab.rows();
  out.row_shape.assign(spec.shape.begin() + (spec.shape.empty() ? 0 : 1), spec.shape.end());
  int64_t row_elements = 1;
  for (int64_t d : out.row_shape) row_elements *= d;
  std::vector<char> values;
  std::vector<int64_t> offsets;
  ConcatenateRows(slab, row_elements * DTypeSize(spec.dtype), &values, &offsets);
  out.num_values = offsets.back();
  ASSIGN_OR_RETURN(out.values,
                   kernels::DeviceBuffer::FromHost(values.data(), values.size(), device, stream));
  ASSIGN_OR_RETURN(out.offsets,
                   kernels::DeviceBuffer::FromHost(offsets.data(), offsets.size() * sizeof(int64_t),
                                                   device, stream));
  return out;
}

StatusOr<kernels::GraphBatch> CollateGraphs(const Slab& slab, kernels::Device device,
                                            void* stream) {
  if (slab.spec().kind != SpaceKind::kGraph) {
    return InvalidArgument("observation " + slab.spec().name + " is not a graph space");
  }
  kernels::NvtxRange range("CollateGraphs");
  // Views of the rows' graphs; a failed env's row has none and stands as an empty graph.
  std::vector<kernels::GraphView> graphs(slab.rows());
  for (int64_t row = 0; row < slab.rows(); ++row) {
    if (const GraphPtr& g = slab.RowGraph(row)) {
      graphs[row] = {.node_text = g->node_text_id,
                     .node_type = g->node_type,
                     .edge_source = g->edge_source,
                     .edge_target = g->edge_target,
                     .edge_flow = g->edge_flow,
                     .edge_position = g->edge_position};
    }
  }
  const kernels::GraphBatchInput input{.graphs = graphs};
  return kernels::AssembleGraphBatch(input, device, stream);
}

StatusOr<kernels::PaddedEmbeddings> GatherEmbeddingRows(const Slab& indices,
                                                        const kernels::EmbeddingTable& table,
                                                        int64_t max_length, void* stream) {
  if (indices.fixed() || indices.spec().dtype != DType::kInt64) {
    return InvalidArgument("observation " + indices.spec().name + " is not ragged int64 indices");
  }
  kernels::NvtxRange range("GatherEmbeddingRows");
  std::vector<int64_t> values, offsets;
  ConcatenateRows(indices, 1, &values, &offsets);
  return kernels::GatherEmbeddings(table, values, offsets, max_length, stream);
}

}  // namespace compiler_gym::batching
