// Validation of a graph batch's input (shared with the CUDA path, before any launch), the CPU
// twin (oneTBB over graphs, counting sorts for the CSR) and the dispatch to either path.
#include "kernels/graph_batch.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "kernels/internal.h"

namespace compiler_gym::kernels {
namespace internal {
namespace {

// Checks graph g (array sizes, then its edges) and counts its edges per flow.
Status CheckGraph(const GraphView& graph, int64_t g, int64_t first_edge,
                  std::array<int64_t, kNumGraphFlows>* flow_counts) {
  const int64_t nodes = graph.num_nodes();
  const int64_t edges = graph.num_edges();
  auto size_error = [&](const char* name, size_t size, int64_t expected, const char* of) {
    return InvalidArgument("graph " + std::to_string(g) + ": " + name + " has " +
                           std::to_string(size) + " entries, expected " + std::to_string(expected) +
                           " (the size of its " + of + ")");
  };
  if (static_cast<int64_t>(graph.node_type.size()) != nodes) {
    return size_error("node_type", graph.node_type.size(), nodes, "node_text");
  }
  for (const auto& [name, array] :
       {std::pair{"edge_target", graph.edge_target}, std::pair{"edge_flow", graph.edge_flow},
        std::pair{"edge_position", graph.edge_position}}) {
    if (static_cast<int64_t>(array.size()) != edges) {
      return size_error(name, array.size(), edges, "edge_source");
    }
  }
  flow_counts->fill(0);
  for (int64_t e = 0; e < edges; ++e) {
    const int64_t source = graph.edge_source[e];
    const int64_t target = graph.edge_target[e];
    const int64_t flow = graph.edge_flow[e];
    const bool bad_source = source < 0 || source >= nodes;
    const bool bad_target = target < 0 || target >= nodes;
    const bool bad_flow = flow < 0 || flow >= kNumGraphFlows;
    if (bad_source || bad_target || bad_flow) {
      const std::string where = "graph " + std::to_string(g) + ", edge " + std::to_string(e) +
                                " (edge " + std::to_string(first_edge + e) + " of the batch): ";
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
  const size_t num_graphs = in.graphs.size();
  GraphBatchLayout layout;
  layout.num_graphs = static_cast<int64_t>(num_graphs);
  layout.node_offsets.assign(num_graphs + 1, 0);
  layout.edge_offsets.assign(num_graphs + 1, 0);
  for (size_t g = 0; g < num_graphs; ++g) {
    layout.node_offsets[g + 1] = layout.node_offsets[g] + in.graphs[g].num_nodes();
    layout.edge_offsets[g + 1] = layout.edge_offsets[g] + in.graphs[g].num_edges();
  }
  layout.num_nodes = layout.node_offsets[num_graphs];
  layout.num_edges = layout.edge_offsets[num_graphs];

  // Graphs are checked in parallel; the error reported is the first bad graph in batch order,
  // found again serially, so the message does not depend on scheduling.
  std::vector<std::array<int64_t, kNumGraphFlows>> flow_counts(num_graphs);
  std::atomic<int64_t> first_bad{layout.num_graphs};
  auto check = [&](int64_t g, std::array<int64_t, kNumGraphFlows>* counts) {
    return CheckGraph(in.graphs[g], g, layout.edge_offsets[g], counts);
  };
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, layout.num_graphs),
                    [&](const tbb::blocked_range<int64_t>& range) {
                      for (int64_t g = range.begin(); g != range.end(); ++g) {
                        if (check(g, &flow_counts[g]).ok()) continue;
                        int64_t seen = first_bad.load();
                        while (g < seen && !first_bad.compare_exchange_weak(seen, g)) {
                        }
                        return;
                      }
                    });
  if (first_bad.load() < layout.num_graphs) {
    std::array<int64_t, kNumGraphFlows> unused;
    return check(first_bad.load(), &unused);
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
  std::vector<int64_t> by_target;  // local edge ids sorted by (flow, target, id)
  std::vector<int64_t> cursor;     // per (flow, local node)
};

// The CSR rows of graph g for every flow. Two stable counting sorts, by (flow, target) and then
// by (flow, source), give each flow's (source, target, edge id) order without comparisons. Rows
// of graph g are its own nodes and its edges are contiguous in each flow's output, so graphs
// are independent.
void BuildGraphCsr(const GraphView& graph, const GraphBatchLayout& layout, int64_t g,
                   GraphBatch& out, CsrScratch& scratch) {
  const int64_t n0 = layout.node_offsets[g];
  const int64_t nodes = graph.num_nodes();
  const int64_t e0 = layout.edge_offsets[g];
  const int64_t edges = graph.num_edges();
  const int64_t* source = graph.edge_source.data();
  const int64_t* target = graph.edge_target.data();
  const int64_t* flow = graph.edge_flow.data();
  auto& cursor = scratch.cursor;

  // Pass 1: by (flow, target), stable, so ties keep id order.
  cursor.assign(kNumGraphFlows * nodes + 1, 0);
  for (int64_t e = 0; e < edges; ++e) ++cursor[flow[e] * nodes + target[e] + 1];
  for (int64_t k = 0; k < kNumGraphFlows * nodes; ++k) cursor[k + 1] += cursor[k];
  scratch.by_target.resize(edges);
  for (int64_t e = 0; e < edges; ++e) scratch.by_target[cursor[flow[e] * nodes + target[e]]++] = e;

  // Pass 2: by (flow, source), into the output. Each flow's row starts are offset by its edges
  // in the graphs before g.
  std::fill(cursor.begin(), cursor.end(), 0);
  for (int64_t e = 0; e < edges; ++e) ++cursor[flow[e] * nodes + source[e]];
  for (int f = 0; f < kNumGraphFlows; ++f) {
    int64_t* row_ptr = out.csr_row_ptr[f].as<int64_t>() + n0;
    int64_t* row_cursor = cursor.data() + f * nodes;
    int64_t start = layout.flow_offsets[g][f];
    for (int64_t v = 0; v < nodes; ++v) {
      const int64_t length = row_cursor[v];
      row_ptr[v] = start;
      row_cursor[v] = start;
      start += length;
    }
  }
  for (int64_t e : scratch.by_target) {
    const int64_t f = flow[e];
    const int64_t slot = cursor[f * nodes + source[e]]++;
    out.csr_col[f].as<int64_t>()[slot] = target[e] + n0;
    out.csr_edge[f].as<int64_t>()[slot] = e0 + e;
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
                        const GraphView& graph = in.graphs[g];
                        const int64_t n0 = layout.node_offsets[g];
                        const int64_t e0 = layout.edge_offsets[g];
                        std::ranges::copy(graph.node_text, x + n0);
                        std::ranges::copy(graph.node_type, node_type + n0);
                        std::fill_n(batch + n0, graph.num_nodes(), g);
                        std::ranges::copy(graph.edge_flow, flows + e0);
                        std::ranges::copy(graph.edge_position, positions + e0);
                        for (int64_t e = 0; e < graph.num_edges(); ++e) {
                          sources[e0 + e] = graph.edge_source[e] + n0;
                          targets[e0 + e] = graph.edge_target[e] + n0;
                        }
                        BuildGraphCsr(graph, layout, g, out, scratch);
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
