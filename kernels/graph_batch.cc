#include "kernels/graph_batch.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/internal.h"

namespace compiler_gym::kernels {
namespace internal {
namespace {

Status CheckSize(const char* name, size_t size, int64_t expected, const char* counts) {
  if (static_cast<int64_t>(size) == expected) return Status::Ok();
  return InvalidArgument(std::string(name) + " has " + std::to_string(size) +
                         " entries, expected " + std::to_string(expected) + " (the sum of " +
                         counts + ")");
}

// Checks the edges of graph g and counts them per flow.
Status CheckGraph(const GraphBatchInput& in, const GraphBatchLayout& layout, int64_t g,
                  std::array<int64_t, kNumGraphFlows>* flow_counts) {
  const int64_t nodes = in.node_counts[g];
  const int64_t e0 = layout.edge_offsets[g];
  const int64_t e1 = layout.edge_offsets[g + 1];
  flow_counts->fill(0);
  for (int64_t e = e0; e < e1; ++e) {
    const int64_t source = in.edge_source[e];
    const int64_t target = in.edge_target[e];
    const int64_t flow = in.edge_flow[e];
    const bool bad_source = source < 0 || source >= nodes;
    const bool bad_target = target < 0 || target >= nodes;
    const bool bad_flow = flow < 0 || flow >= kNumGraphFlows;
    if (bad_source || bad_target || bad_flow) {
      const std::string where = "graph " + std::to_string(g) + ", edge " + std::to_string(e - e0) +
                                " (edge " + std::to_string(e) + " of the batch): ";
      if (bad_flow && !bad_source && !bad_target) {
        return InvalidArgument(where + "flow " + std::to_string(flow) + " is not in [0, " +
                               std::to_string(kNumGraphFlows) + ")");
      }
      return InvalidArgument(where + (bad_source ? "source " : "target ") +
                             std::to_string(bad_source ? source : target) +
                             " is not a local node id of the graph, which has " +
                             std::to_string(nodes) + " nodes");
    }
    ++(*flow_counts)[flow];
  }
  return Status::Ok();
}

}  // namespace

StatusOr<GraphBatchLayout> ValidateGraphBatchInput(const GraphBatchInput& in) {
  const size_t num_graphs = in.node_counts.size();
  if (in.edge_counts.size() != num_graphs) {
    return InvalidArgument("node_counts has " + std::to_string(num_graphs) +
                           " graphs but edge_counts has " + std::to_string(in.edge_counts.size()));
  }
  GraphBatchLayout layout;
  layout.num_graphs = static_cast<int64_t>(num_graphs);
  layout.node_offsets.assign(num_graphs + 1, 0);
  layout.edge_offsets.assign(num_graphs + 1, 0);
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  for (size_t g = 0; g < num_graphs; ++g) {
    const int64_t nodes = in.node_counts[g];
    const int64_t edges = in.edge_counts[g];
    if (nodes < 0 || edges < 0) {
      return InvalidArgument("graph " + std::to_string(g) + " has a negative " +
                             (nodes < 0 ? "node count " + std::to_string(nodes)
                                        : "edge count " + std::to_string(edges)));
    }
    if (nodes > kMax - layout.node_offsets[g] || edges > kMax - layout.edge_offsets[g]) {
      return InvalidArgument("the node or edge counts overflow int64 at graph " +
                             std::to_string(g));
    }
    layout.node_offsets[g + 1] = layout.node_offsets[g] + nodes;
    layout.edge_offsets[g + 1] = layout.edge_offsets[g] + edges;
  }
  layout.num_nodes = layout.node_offsets[num_graphs];
  layout.num_edges = layout.edge_offsets[num_graphs];
  RETURN_IF_ERROR(CheckSize("node_text", in.node_text.size(), layout.num_nodes, "node_counts"));
  RETURN_IF_ERROR(CheckSize("node_type", in.node_type.size(), layout.num_nodes, "node_counts"));
  RETURN_IF_ERROR(CheckSize("edge_source", in.edge_source.size(), layout.num_edges, "edge_counts"));
  RETURN_IF_ERROR(CheckSize("edge_target", in.edge_target.size(), layout.num_edges, "edge_counts"));
  RETURN_IF_ERROR(CheckSize("edge_flow", in.edge_flow.size(), layout.num_edges, "edge_counts"));
  RETURN_IF_ERROR(
      CheckSize("edge_position", in.edge_position.size(), layout.num_edges, "edge_counts"));

  // Graphs are checked in parallel; the error reported is the first bad graph in batch order,
  // found again serially, so the message does not depend on scheduling.
  std::vector<std::array<int64_t, kNumGraphFlows>> flow_counts(num_graphs);
  std::atomic<int64_t> first_bad{layout.num_graphs};
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, layout.num_graphs),
                    [&](const tbb::blocked_range<int64_t>& range) {
                      for (int64_t g = range.begin(); g != range.end(); ++g) {
                        if (CheckGraph(in, layout, g, &flow_counts[g]).ok()) continue;
                        int64_t seen = first_bad.load();
                        while (g < seen && !first_bad.compare_exchange_weak(seen, g)) {
                        }
                        return;
                      }
                    });
  if (first_bad.load() < layout.num_graphs) {
    std::array<int64_t, kNumGraphFlows> unused;
    return CheckGraph(in, layout, first_bad.load(), &unused);
  }
  layout.flow_offsets.assign(num_graphs + 1, {});
  for (size_t g = 0; g < num_graphs; ++g) {
    for (int f = 0; f < kNumGraphFlows; ++f) {
      layout.flow_offsets[g + 1][f] = layout.flow_offsets[g][f] + flow_counts[g][f];
    }
  }
  return layout;
}

}  // namespace internal

namespace {

using internal::GraphBatchLayout;

// Reused across the graphs of one TBB chunk.
struct CsrScratch {
  std::vector<int64_t> edges;      // one flow's edge ids of the graph, in id order
  std::vector<int64_t> by_target;  // the same, sorted by (target, id)
  std::vector<int64_t> cursor;     // per local node
};

// The CSR rows of graph g for flow f: a stable counting sort by target, then one by source,
// gives the (source, target, edge id) order without comparisons. Rows of graph g are its own
// nodes and its edges are contiguous in the output, so graphs are independent.
void BuildGraphCsr(const GraphBatchInput& in, const GraphBatchLayout& layout, int64_t g, int f,
                   GraphBatch& out, CsrScratch& scratch) {
  const int64_t n0 = layout.node_offsets[g];
  const int64_t nodes = layout.node_offsets[g + 1] - n0;
  const int64_t e0 = layout.edge_offsets[g];
  const int64_t e1 = layout.edge_offsets[g + 1];
  int64_t* row_ptr = out.csr_row_ptr[f].as<int64_t>() + n0;
  int64_t* col = out.csr_col[f].as<int64_t>();
  int64_t* edge = out.csr_edge[f].as<int64_t>();

  scratch.edges.clear();
  for (int64_t e = e0; e < e1; ++e) {
    if (in.edge_flow[e] == f) scratch.edges.push_back(e);
  }
  const size_t count = scratch.edges.size();

  // Pass 1: by target (stable, so ties keep id order).
  scratch.cursor.assign(nodes + 1, 0);
  for (int64_t e : scratch.edges) ++scratch.cursor[in.edge_target[e] + 1];
  for (int64_t v = 0; v < nodes; ++v) scratch.cursor[v + 1] += scratch.cursor[v];
  scratch.by_target.resize(count);
  for (int64_t e : scratch.edges) scratch.by_target[scratch.cursor[in.edge_target[e]]++] = e;

  // Pass 2: by source, into the output. Row starts are offset by this flow's edges in the
  // graphs before g.
  std::fill(row_ptr, row_ptr + nodes, 0);
  for (int64_t e : scratch.edges) ++row_ptr[in.edge_source[e]];
  int64_t start = layout.flow_offsets[g][f];
  for (int64_t v = 0; v < nodes; ++v) {
    const int64_t length = row_ptr[v];
    row_ptr[v] = start;
    scratch.cursor[v] = start;
    start += length;
  }
  for (int64_t e : scratch.by_target) {
    const int64_t slot = scratch.cursor[in.edge_source[e]]++;
    col[slot] = in.edge_target[e] + n0;
    edge[slot] = e;
  }
}

StatusOr<GraphBatch> AssembleGraphBatchCpu(const GraphBatchInput& in,
                                           const GraphBatchLayout& layout) {
  GraphBatch out;
  out.num_graphs = layout.num_graphs;
  out.num_nodes = layout.num_nodes;
  out.num_edges = layout.num_edges;
  const int64_t num_nodes = layout.num_nodes;
  const int64_t num_edges = layout.num_edges;
  auto allocate = [](DeviceBuffer& buffer, int64_t elements) -> Status {
    ASSIGN_OR_RETURN(buffer, DeviceBuffer::Allocate(Device::kCpu, elements * sizeof(int64_t)));
    return Status::Ok();
  };
  RETURN_IF_ERROR(allocate(out.x, num_nodes));
  RETURN_IF_ERROR(allocate(out.node_type, num_nodes));
  RETURN_IF_ERROR(allocate(out.edge_index, 2 * num_edges));
  RETURN_IF_ERROR(allocate(out.edge_flow, num_edges));
  RETURN_IF_ERROR(allocate(out.edge_position, num_edges));
  RETURN_IF_ERROR(allocate(out.batch, num_nodes));
  RETURN_IF_ERROR(allocate(out.ptr, layout.num_graphs + 1));
  for (int f = 0; f < kNumGraphFlows; ++f) {
    out.flow_edges[f] = layout.flow_offsets.back()[f];
    RETURN_IF_ERROR(allocate(out.csr_row_ptr[f], num_nodes + 1));
    RETURN_IF_ERROR(allocate(out.csr_col[f], out.flow_edges[f]));
    RETURN_IF_ERROR(allocate(out.csr_edge[f], out.flow_edges[f]));
    out.csr_row_ptr[f].as<int64_t>()[num_nodes] = out.flow_edges[f];
  }
  std::copy(layout.node_offsets.begin(), layout.node_offsets.end(), out.ptr.as<int64_t>());
  int64_t* x = out.x.as<int64_t>();
  int64_t* node_type = out.node_type.as<int64_t>();
  int64_t* batch = out.batch.as<int64_t>();
  int64_t* flows = out.edge_flow.as<int64_t>();
  int64_t* positions = out.edge_position.as<int64_t>();
  int64_t* sources = out.edge_index.as<int64_t>();
  int64_t* targets = sources + num_edges;
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, layout.num_graphs),
                    [&](const tbb::blocked_range<int64_t>& range) {
                      CsrScratch scratch;
                      for (int64_t g = range.begin(); g != range.end(); ++g) {
                        const int64_t n0 = layout.node_offsets[g];
                        const int64_t n1 = layout.node_offsets[g + 1];
                        const int64_t e0 = layout.edge_offsets[g];
                        const int64_t e1 = layout.edge_offsets[g + 1];
                        std::copy(in.node_text.data() + n0, in.node_text.data() + n1, x + n0);
                        std::copy(in.node_type.data() + n0, in.node_type.data() + n1,
                                  node_type + n0);
                        std::fill(batch + n0, batch + n1, g);
                        for (int64_t e = e0; e < e1; ++e) {
                          sources[e] = in.edge_source[e] + n0;
                          targets[e] = in.edge_target[e] + n0;
                          flows[e] = in.edge_flow[e];
                          positions[e] = in.edge_position[e];
                        }
                        for (int f = 0; f < kNumGraphFlows; ++f) {
                          BuildGraphCsr(in, layout, g, f, out, scratch);
                        }
                      }
                    });
  return out;
}

}  // namespace

StatusOr<GraphBatch> AssembleGraphBatch(const GraphBatchInput& input, Device device, void* stream) {
  NvtxRange range("AssembleGraphBatch");
  RETURN_IF_ERROR(CheckDevice(device));
  ASSIGN_OR_RETURN(GraphBatchLayout layout, internal::ValidateGraphBatchInput(input));
  if (device == Device::kCpu) return AssembleGraphBatchCpu(input, layout);
#ifdef CG_WITH_CUDA
  return internal::AssembleGraphBatchCuda(input, layout, stream);
#else
  return Internal("unreachable: CheckDevice accepted cuda in a build without CUDA");
#endif
}

}  // namespace compiler_gym::kernels
