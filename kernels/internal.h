// Internal to kernels/: what the CPU twins (.cc) and the CUDA kernels (.cu) share. Each public
// entry point validates its input here, on the host and before any launch, and then dispatches
// to the CPU twin or to the CUDA entry point below; both read the same layout, so they cannot
// disagree about sizes.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/status.h"
#include "kernels/embedding_gather.h"
#include "kernels/graph_batch.h"

namespace compiler_gym::kernels::internal {

// Sizes and offsets of a valid GraphBatchInput.
struct GraphBatchLayout {
  int64_t num_graphs = 0;
  int64_t num_nodes = 0;
  int64_t num_edges = 0;
  std::vector<int64_t> node_offsets;  // [G + 1], exclusive scan of node_counts (= ptr)
  std::vector<int64_t> edge_offsets;  // [G + 1], exclusive scan of edge_counts
  // [G + 1]: edges of each flow in the graphs before g; the last row is flow_edges.
  std::vector<std::array<int64_t, kNumGraphFlows>> flow_offsets;
};

// kInvalidArgument naming the first bad graph (and edge) in batch order.
StatusOr<GraphBatchLayout> ValidateGraphBatchInput(const GraphBatchInput& input);

// Sizes of a valid gather.
struct GatherLayout {
  int64_t num_sequences = 0;     // G
  int64_t max_length = 0;        // L, after resolving 0 to the longest sequence
  std::vector<int64_t> lengths;  // [G], min(sequence length, L)
};

StatusOr<GatherLayout> ValidateGatherInput(int64_t table_rows, int64_t dim,
                                           std::span<const int64_t> indices,
                                           std::span<const int64_t> offsets, int64_t max_length);

#ifdef CG_WITH_CUDA
// The CUDA paths (graph_batch.cu, embedding_gather.cu), called with validated input only.
StatusOr<GraphBatch> AssembleGraphBatchCuda(const GraphBatchInput& input,
                                            const GraphBatchLayout& layout, void* stream);
StatusOr<PaddedEmbeddings> GatherEmbeddingsCuda(const EmbeddingTable& table,
                                                std::span<const int64_t> indices,
                                                std::span<const int64_t> offsets,
                                                const GatherLayout& layout, void* stream);
#endif

}  // namespace compiler_gym::kernels::internal
