// Batched forms of variable-size observation slabs, on the CPU or on a CUDA device:
//   - ragged spaces (Inst2vecEmbeddingIndices, Runtime...) -> values + offsets [rows + 1];
//   - graph spaces (Programl) -> a PyTorch Geometric-style batch (kernels/graph_batch.h);
//   - index spaces with an embedding table (Inst2vec) -> padded [rows, L, D] + lengths.
// Used by the Python module (vec_env_binding.cc); free of pybind11, so C++ code may use it too.
// A row without a value (an env whose step failed) contributes an empty sequence or graph.
//
//   const Slab& programl = batch->slabs->slab(k);  // a graph space's slab
//   ASSIGN_OR_RETURN(kernels::GraphBatch graphs, CollateGraphs(programl, kernels::Device::kCuda));
//   const Slab& runtime = batch->slabs->slab(j);   // a ragged space's slab
//   ASSIGN_OR_RETURN(RaggedBatch runtimes, PackRagged(runtime, kernels::Device::kCpu));
#pragma once

#include <cstdint>
#include <vector>

#include "engine/slab.h"
#include "engine/status.h"
#include "kernels/device.h"
#include "kernels/embedding_gather.h"
#include "kernels/graph_batch.h"

namespace compiler_gym::batching {

struct RaggedBatch {
  kernels::DeviceBuffer values;   // the rows' elements back to back, in the slab's dtype
  kernels::DeviceBuffer offsets;  // int64 [rows + 1], in rows of row_shape (not elements)
  int64_t rows = 0;
  int64_t num_values = 0;          // in rows of row_shape
  std::vector<int64_t> row_shape;  // the shape of one value: {} or {D}
};

StatusOr<RaggedBatch> PackRagged(const Slab& slab, kernels::Device device, void* stream = nullptr);

StatusOr<kernels::GraphBatch> CollateGraphs(const Slab& slab, kernels::Device device,
                                            void* stream = nullptr);

// Each row of `indices` (an int64 ragged slab) becomes its rows of `table`.
StatusOr<kernels::PaddedEmbeddings> GatherEmbeddingRows(const Slab& indices,
                                                        const kernels::EmbeddingTable& table,
                                                        int64_t max_length = 0,
                                                        void* stream = nullptr);

}  // namespace compiler_gym::batching
