// Tests of AssembleGraphBatch: a golden three-graph batch, invalid input, the CPU twin's CSR
// invariants on seeded random graphs, and (where a GPU is present) the CUDA kernels against it.
#include "kernels/graph_batch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "kernels/test_util.h"

namespace compiler_gym::kernels {
namespace {

using testing::Contains;
using testing::ToHost;
using V = std::vector<int64_t>;

// Owns the arrays a GraphBatchInput points into: flat arrays cut into graphs by the counts. A
// graph's slice of an array ends early where the array is too short for the counts.
struct Graphs {
  V node_counts, edge_counts, node_text, node_type, edge_source, edge_target, edge_flow,
      edge_position;
  mutable std::vector<GraphView> views;

  GraphBatchInput input() const {
    views.assign(node_counts.size(), {});
    int64_t n0 = 0, e0 = 0;
    auto slice = [](const V& array, int64_t begin, int64_t count) {
      begin = std::min<int64_t>(begin, array.size());
      return std::span<const int64_t>(array).subspan(
          begin, std::min<int64_t>(count, array.size() - begin));
    };
    for (size_t g = 0; g < node_counts.size(); ++g) {
      const int64_t nodes = node_counts[g], edges = edge_counts[g];
      views[g] = {slice(node_text, n0, nodes),   slice(node_type, n0, nodes),
                  slice(edge_source, e0, edges), slice(edge_target, e0, edges),
                  slice(edge_flow, e0, edges),   slice(edge_position, e0, edges)};
      n0 += nodes;
      e0 += edges;
    }
    return {.graphs = views};
  }
};

// Three graphs, the middle one empty. Graph 0 lists its flow-0 edges out of (target) order and
// has a duplicate edge, to pin down the CSR order (source, target, edge id).
Graphs Golden() {
  Graphs g;
  g.node_counts = {3, 0, 2};
  g.edge_counts = {5, 0, 3};
  g.node_text = {10, 11, 12, 20, 21};
  g.node_type = {0, 1, 2, 0, 1};
  //                 graph 0           graph 2
  g.edge_source = {0, 0, 1, 0, 2, /**/ 1, 0, 1};
  g.edge_target = {2, 1, 2, 1, 0, /**/ 0, 1, 1};
  g.edge_flow = {0, 0, 1, 0, 2, /**/ 0, 2, 0};
  g.edge_position = {0, 1, 0, 2, 0, /**/ 0, 1, 3};
  return g;
}

TEST(GraphBatch, CpuGolden) {
  Graphs graphs = Golden();
  auto batch = AssembleGraphBatch(graphs.input(), Device::kCpu);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->num_graphs, 3);
  EXPECT_EQ(batch->num_nodes, 5);
  EXPECT_EQ(batch->num_edges, 8);
  EXPECT_EQ(ToHost<int64_t>(batch->x), (V{10, 11, 12, 20, 21}));
  EXPECT_EQ(ToHost<int64_t>(batch->node_type), (V{0, 1, 2, 0, 1}));
  EXPECT_EQ(ToHost<int64_t>(batch->batch), (V{0, 0, 0, 2, 2}));
  EXPECT_EQ(ToHost<int64_t>(batch->ptr), (V{0, 3, 3, 5}));
  // Row 0 sources, row 1 targets; graph 2's local ids shift by 3.
  EXPECT_EQ(ToHost<int64_t>(batch->edge_index), (V{0, 0, 1, 0, 2, 4, 3, 4,  //
                                                   2, 1, 2, 1, 0, 3, 4, 4}));
  EXPECT_EQ(ToHost<int64_t>(batch->edge_flow), (V{0, 0, 1, 0, 2, 0, 2, 0}));
  EXPECT_EQ(ToHost<int64_t>(batch->edge_position), (V{0, 1, 0, 2, 0, 0, 1, 3}));
  EXPECT_EQ(batch->flow_edges, (std::array<int64_t, kNumGraphFlows>{5, 1, 2}));

  // Flow 0: edges 0 (0->2), 1 (0->1), 3 (0->1), 5 (4->3), 7 (4->4).
  EXPECT_EQ(ToHost<int64_t>(batch->csr_row_ptr[0]), (V{0, 3, 3, 3, 3, 5}));
  EXPECT_EQ(ToHost<int64_t>(batch->csr_col[0]), (V{1, 1, 2, 3, 4}));
  EXPECT_EQ(ToHost<int64_t>(batch->csr_edge[0]), (V{1, 3, 0, 5, 7}));
  // Flow 1: edge 2 (1->2).
  EXPECT_EQ(ToHost<int64_t>(batch->csr_row_ptr[1]), (V{0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(ToHost<int64_t>(batch->csr_col[1]), (V{2}));
  EXPECT_EQ(ToHost<int64_t>(batch->csr_edge[1]), (V{2}));
  // Flow 2: edges 4 (2->0), 6 (3->4).
  EXPECT_EQ(ToHost<int64_t>(batch->csr_row_ptr[2]), (V{0, 0, 0, 1, 2, 2}));
  EXPECT_EQ(ToHost<int64_t>(batch->csr_col[2]), (V{0, 4}));
  EXPECT_EQ(ToHost<int64_t>(batch->csr_edge[2]), (V{4, 6}));
}

TEST(GraphBatch, EmptyBatches) {
  Graphs none;
  auto batch = AssembleGraphBatch(none.input(), Device::kCpu);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->num_graphs, 0);
  EXPECT_EQ(ToHost<int64_t>(batch->ptr), (V{0}));
  EXPECT_EQ(ToHost<int64_t>(batch->csr_row_ptr[1]), (V{0}));
  EXPECT_EQ(batch->x.size(), 0u);

  Graphs edgeless;
  edgeless.node_counts = {2, 0};
  edgeless.edge_counts = {0, 0};
  edgeless.node_text = {7, 8};
  edgeless.node_type = {1, 1};
  batch = AssembleGraphBatch(edgeless.input(), Device::kCpu);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(ToHost<int64_t>(batch->ptr), (V{0, 2, 2}));
  EXPECT_EQ(ToHost<int64_t>(batch->batch), (V{0, 0}));
  EXPECT_EQ(ToHost<int64_t>(batch->csr_row_ptr[0]), (V{0, 0, 0}));
  EXPECT_EQ(batch->edge_index.size(), 0u);
}

Status Assemble(const Graphs& graphs) {
  return AssembleGraphBatch(graphs.input(), Device::kCpu).status();
}

TEST(GraphBatch, RejectsALocalIdOutsideItsGraph) {
  Graphs graphs = Golden();
  graphs.edge_target[6] = 2;  // graph 2 has nodes 0 and 1 only
  Status status = Assemble(graphs);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(status.message(), "graph 2, edge 1 (edge 6 of the batch)"))
      << status.message();
  EXPECT_TRUE(Contains(status.message(), "target 2")) << status.message();

  graphs = Golden();
  graphs.edge_source[0] = -1;
  status = Assemble(graphs);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(status.message(), "graph 0, edge 0")) << status.message();
  EXPECT_TRUE(Contains(status.message(), "source -1")) << status.message();
}

TEST(GraphBatch, ReportsTheFirstBadGraph) {
  Graphs graphs = Golden();
  graphs.edge_source[7] = 5;
  graphs.edge_target[4] = 3;
  Status status = Assemble(graphs);
  EXPECT_TRUE(Contains(status.message(), "graph 0, edge 4")) << status.message();
}

TEST(GraphBatch, RejectsAFlowOutOfRange) {
  Graphs graphs = Golden();
  graphs.edge_flow[5] = kNumGraphFlows;
  Status status = Assemble(graphs);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(status.message(), "graph 2, edge 0")) << status.message();
  EXPECT_TRUE(Contains(status.message(), "flow 3")) << status.message();
  graphs.edge_flow[5] = -1;
  EXPECT_EQ(Assemble(graphs).code(), StatusCode::kInvalidArgument);
}

TEST(GraphBatch, RejectsSizeMismatchesWithinAGraph) {
  Graphs graphs = Golden();
  graphs.node_type.pop_back();  // graph 2's node_type is one short
  Status status = Assemble(graphs);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(status.message(),
                       "graph 2: node_type has 1 entries, expected 2 (the size of its node_text)"))
      << status.message();

  graphs = Golden();
  graphs.edge_position.resize(4);  // graph 0 has 5 edges
  status = Assemble(graphs);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(status.message(), "graph 0: edge_position has 4 entries, expected 5"))
      << status.message();

  graphs = Golden();
  graphs.edge_flow.resize(7);
  status = Assemble(graphs);
  EXPECT_TRUE(Contains(status.message(), "graph 2: edge_flow has 2 entries, expected 3"))
      << status.message();
}

TEST(GraphBatch, CudaWithoutADeviceIsUnavailable) {
  if (CudaDeviceCount() > 0) GTEST_SKIP() << "a CUDA device is available here";
  Graphs graphs = Golden();
  EXPECT_EQ(AssembleGraphBatch(graphs.input(), Device::kCuda).status().code(),
            StatusCode::kUnavailable);
}

// Random graphs (seeded): empty graphs, self loops, duplicate edges and every flow.
Graphs RandomGraphs(uint32_t seed, int num_graphs, int max_nodes, int max_edges) {
  std::mt19937_64 rng(seed);
  auto uniform = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  Graphs g;
  for (int i = 0; i < num_graphs; ++i) {
    const int64_t nodes = uniform(0, 4) == 0 ? 0 : uniform(1, max_nodes);
    const int64_t edges = nodes == 0 ? 0 : uniform(0, max_edges);
    g.node_counts.push_back(nodes);
    g.edge_counts.push_back(edges);
    for (int64_t n = 0; n < nodes; ++n) {
      g.node_text.push_back(uniform(0, 8000));
      g.node_type.push_back(uniform(0, 2));
    }
    for (int64_t e = 0; e < edges; ++e) {
      // A small id range for some edges makes duplicates likely.
      const int64_t hi = uniform(0, 1) ? nodes - 1 : std::min<int64_t>(nodes - 1, 2);
      g.edge_source.push_back(uniform(0, hi));
      g.edge_target.push_back(uniform(0, hi));
      g.edge_flow.push_back(uniform(0, kNumGraphFlows - 1));
      g.edge_position.push_back(uniform(0, 5));
    }
  }
  return g;
}

void ExpectSameBatch(const GraphBatch& a, const GraphBatch& b) {
  EXPECT_EQ(a.num_graphs, b.num_graphs);
  EXPECT_EQ(a.num_nodes, b.num_nodes);
  EXPECT_EQ(a.num_edges, b.num_edges);
  EXPECT_EQ(a.flow_edges, b.flow_edges);
  EXPECT_EQ(ToHost<int64_t>(a.x), ToHost<int64_t>(b.x));
  EXPECT_EQ(ToHost<int64_t>(a.node_type), ToHost<int64_t>(b.node_type));
  EXPECT_EQ(ToHost<int64_t>(a.edge_index), ToHost<int64_t>(b.edge_index));
  EXPECT_EQ(ToHost<int64_t>(a.edge_flow), ToHost<int64_t>(b.edge_flow));
  EXPECT_EQ(ToHost<int64_t>(a.edge_position), ToHost<int64_t>(b.edge_position));
  EXPECT_EQ(ToHost<int64_t>(a.batch), ToHost<int64_t>(b.batch));
  EXPECT_EQ(ToHost<int64_t>(a.ptr), ToHost<int64_t>(b.ptr));
  for (int f = 0; f < kNumGraphFlows; ++f) {
    EXPECT_EQ(ToHost<int64_t>(a.csr_row_ptr[f]), ToHost<int64_t>(b.csr_row_ptr[f])) << f;
    EXPECT_EQ(ToHost<int64_t>(a.csr_col[f]), ToHost<int64_t>(b.csr_col[f])) << f;
    EXPECT_EQ(ToHost<int64_t>(a.csr_edge[f]), ToHost<int64_t>(b.csr_edge[f])) << f;
  }
}

// The CPU twin's CSR obeys its contract on random input: rows sorted by (target, edge id), every
// edge of the flow exactly once, in the row of its source.
TEST(GraphBatch, CpuCsrInvariantsOnRandomGraphs) {
  Graphs graphs = RandomGraphs(7, 40, 30, 80);
  auto batch = AssembleGraphBatch(graphs.input(), Device::kCpu);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  const V edge_index = ToHost<int64_t>(batch->edge_index);
  const V flows = ToHost<int64_t>(batch->edge_flow);
  const int64_t num_edges = batch->num_edges;
  std::vector<int> seen(num_edges, 0);
  for (int f = 0; f < kNumGraphFlows; ++f) {
    const V row_ptr = ToHost<int64_t>(batch->csr_row_ptr[f]);
    const V col = ToHost<int64_t>(batch->csr_col[f]);
    const V edge = ToHost<int64_t>(batch->csr_edge[f]);
    ASSERT_EQ(static_cast<int64_t>(row_ptr.size()), batch->num_nodes + 1);
    ASSERT_EQ(row_ptr.back(), batch->flow_edges[f]);
    for (int64_t v = 0; v < batch->num_nodes; ++v) {
      for (int64_t i = row_ptr[v]; i < row_ptr[v + 1]; ++i) {
        const int64_t e = edge[i];
        ++seen[e];
        EXPECT_EQ(flows[e], f);
        EXPECT_EQ(edge_index[e], v);
        EXPECT_EQ(edge_index[num_edges + e], col[i]);
        if (i > row_ptr[v]) {
          EXPECT_TRUE(col[i - 1] < col[i] || (col[i - 1] == col[i] && edge[i - 1] < edge[i]));
        }
      }
    }
  }
  for (int64_t e = 0; e < num_edges; ++e) EXPECT_EQ(seen[e], 1) << e;
}

TEST(GraphBatchCuda, MatchesTheCpuTwinOnRandomGraphs) {
  CG_SKIP_WITHOUT_CUDA();
  for (uint32_t seed : {1u, 2u, 3u}) {
    Graphs graphs = RandomGraphs(seed, 64, 200, 600);
    auto cpu = AssembleGraphBatch(graphs.input(), Device::kCpu);
    auto cuda = AssembleGraphBatch(graphs.input(), Device::kCuda);
    ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
    ASSERT_TRUE(cuda.ok()) << cuda.status().ToString();
    EXPECT_EQ(cuda->x.device(), Device::kCuda);
    ExpectSameBatch(*cpu, *cuda);
  }
}

TEST(GraphBatchCuda, MatchesTheCpuTwinOnALargeBatchAndTheGolden) {
  CG_SKIP_WITHOUT_CUDA();
  // Large enough for grid-stride loops and several radix-sort tiles.
  Graphs graphs = RandomGraphs(11, 512, 3000, 9000);
  auto cpu = AssembleGraphBatch(graphs.input(), Device::kCpu);
  auto cuda = AssembleGraphBatch(graphs.input(), Device::kCuda);
  ASSERT_TRUE(cpu.ok() && cuda.ok());
  ExpectSameBatch(*cpu, *cuda);

  Graphs golden = Golden();
  cpu = AssembleGraphBatch(golden.input(), Device::kCpu);
  cuda = AssembleGraphBatch(golden.input(), Device::kCuda);
  ASSERT_TRUE(cpu.ok() && cuda.ok());
  ExpectSameBatch(*cpu, *cuda);
}

TEST(GraphBatchCuda, EmptyBatchesAndOtherStreams) {
  CG_SKIP_WITHOUT_CUDA();
  Graphs none;
  auto batch = AssembleGraphBatch(none.input(), Device::kCuda);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(ToHost<int64_t>(batch->ptr), (V{0}));
  EXPECT_EQ(ToHost<int64_t>(batch->csr_row_ptr[2]), (V{0}));

  Graphs edgeless;
  edgeless.node_counts = {0, 3};
  edgeless.edge_counts = {0, 0};
  edgeless.node_text = {1, 2, 3};
  edgeless.node_type = {0, 0, 0};
  auto cpu = AssembleGraphBatch(edgeless.input(), Device::kCpu);
  auto cuda = AssembleGraphBatch(edgeless.input(), Device::kCuda, EngineStream());
  ASSERT_TRUE(cpu.ok() && cuda.ok());
  ExpectSameBatch(*cpu, *cuda);
}

TEST(GraphBatchCuda, ValidatesBeforeLaunching) {
  CG_SKIP_WITHOUT_CUDA();
  Graphs graphs = Golden();
  graphs.edge_flow[2] = 7;
  Status status = AssembleGraphBatch(graphs.input(), Device::kCuda).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(status.message(), "graph 0, edge 2")) << status.message();
}

}  // namespace
}  // namespace compiler_gym::kernels
