// Graph batch assembly: many per-environment graphs -> one PyTorch Geometric-style batch.
//
// Input: views of each graph's arrays on the host, with node ids local to each graph.
// Output (all int64): x [N] node-text ids, node_type [N], edge_index [2, E] with global node ids
// (row 0 sources, row 1 targets), edge_flow [E], edge_position [E], batch [N] (graph of each
// node), ptr [G + 1] (first node of each graph), and a CSR adjacency per flow: for flow f,
// csr_row_ptr[f] [N + 1] indexes csr_col[f] (targets) and csr_edge[f] (edge ids into
// edge_index), sorted by (source, target, edge id).
//
// AssembleGraphBatch runs the CPU twin (oneTBB) for Device::kCpu and the CUDA kernels (Thrust
// sort/scan) for Device::kCuda; both give identical results.
//
//   std::vector<GraphView> graphs(num_envs);  // each env's arrays, as spans
//   ASSIGN_OR_RETURN(GraphBatch batch, AssembleGraphBatch({.graphs = graphs}, Device::kCuda));
//   // batch.edge_index.as<int64_t>(): [2, batch.num_edges], queued on the engine stream
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "engine/status.h"
#include "kernels/device.h"

namespace compiler_gym::kernels {

inline constexpr int kNumGraphFlows = 3;

// One graph of a batch: views of its arrays, with node ids local to the graph. A batch is
// assembled straight from the envs' graphs; concatenating them first would copy every array
// once more.
struct GraphView {
  std::span<const int64_t> node_text;      // [nodes]
  std::span<const int64_t> node_type;      // [nodes]
  std::span<const int64_t> edge_source;    // [edges], local ids
  std::span<const int64_t> edge_target;    // [edges], local ids
  std::span<const int64_t> edge_flow;      // [edges], 0 <= flow < kNumGraphFlows
  std::span<const int64_t> edge_position;  // [edges]

  int64_t num_nodes() const { return static_cast<int64_t>(node_text.size()); }
  int64_t num_edges() const { return static_cast<int64_t>(edge_source.size()); }
};

struct GraphBatchInput {
  std::span<const GraphView> graphs;  // [G], in batch order
};

struct GraphBatch {
  int64_t num_graphs = 0;
  int64_t num_nodes = 0;
  int64_t num_edges = 0;
  DeviceBuffer x, node_type, edge_index, edge_flow, edge_position, batch, ptr;
  std::array<DeviceBuffer, kNumGraphFlows> csr_row_ptr, csr_col, csr_edge;
  std::array<int64_t, kNumGraphFlows> flow_edges{};  // edges per flow
};

// kInvalidArgument when the input is inconsistent (array sizes within a graph, a local id out
// of its graph, a flow out of range), checked on the host before any launch and naming the first
// bad graph and edge; kUnavailable when `device` is unavailable. On CUDA the work is queued
// on `stream` (nullptr: the engine stream) and the call returns without waiting for it; a batch of
// more than 2^31 nodes is kResourceExhausted there (its sort keys pack node ids in 31 bits).
StatusOr<GraphBatch> AssembleGraphBatch(const GraphBatchInput& input, Device device,
                                        void* stream = nullptr);

}  // namespace compiler_gym::kernels
