#include "torch_ext/batching.h"

#include <oneapi/tbb/parallel_for.h>

#include <cstring>

namespace compiler_gym::batching {
namespace {

// Host-side concatenation of per-row arrays: offsets by prefix sum, copies in parallel.
template <typename T, typename Get>
std::vector<T> Concatenate(int64_t rows, const std::vector<int64_t>& offsets, Get get) {
  std::vector<T> out(offsets.back());
  oneapi::tbb::parallel_for(int64_t{0}, rows, [&](int64_t row) {
    const std::vector<T>* v = get(row);
    if (v != nullptr && !v->empty())
      std::memcpy(out.data() + offsets[row], v->data(), v->size() * sizeof(T));
  });
  return out;
}

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
  const int64_t rows = slab.rows();
  std::vector<int64_t> node_counts(rows), edge_counts(rows);
  std::vector<int64_t> node_offsets(rows + 1, 0), edge_offsets(rows + 1, 0);
  for (int64_t row = 0; row < rows; ++row) {
    const GraphPtr& g = slab.RowGraph(row);
    node_counts[row] = g ? g->num_nodes() : 0;
    edge_counts[row] = g ? g->num_edges() : 0;
    node_offsets[row + 1] = node_offsets[row] + node_counts[row];
    edge_offsets[row + 1] = edge_offsets[row] + edge_counts[row];
  }
  auto nodes = [&](auto member) {
    return Concatenate<int64_t>(rows, node_offsets,
                                [&](int64_t row) -> const std::vector<int64_t>* {
                                  const GraphPtr& g = slab.RowGraph(row);
                                  return g ? &((*g).*member) : nullptr;
                                });
  };
  auto edges = [&](auto member) {
    return Concatenate<int64_t>(rows, edge_offsets,
                                [&](int64_t row) -> const std::vector<int64_t>* {
                                  const GraphPtr& g = slab.RowGraph(row);
                                  return g ? &((*g).*member) : nullptr;
                                });
  };
  const std::vector<int64_t> text = nodes(&Graph::node_text_id);
  const std::vector<int64_t> type = nodes(&Graph::node_type);
  const std::vector<int64_t> source = edges(&Graph::edge_source);
  const std::vector<int64_t> target = edges(&Graph::edge_target);
  const std::vector<int64_t> flow = edges(&Graph::edge_flow);
  const std::vector<int64_t> position = edges(&Graph::edge_position);
  const kernels::GraphBatchInput input{.node_counts = node_counts,
                                       .edge_counts = edge_counts,
                                       .node_text = text,
                                       .node_type = type,
                                       .edge_source = source,
                                       .edge_target = target,
                                       .edge_flow = flow,
                                       .edge_position = position};
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
