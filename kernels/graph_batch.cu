// The CUDA path of AssembleGraphBatch. Every output is an integer computed exactly, so it is
// bit-identical to the CPU twin (graph_batch.cc): offsets by scan, global ids by addition, and
// the CSR order by a stable radix sort of (flow, source, target) keys over edge ids that start
// in id order, which breaks ties by edge id as the CPU twin's counting sorts do.
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/system/cuda/execution_policy.h>

#include <string>
#include <vector>

#include "kernels/cuda_util.cuh"
#include "kernels/internal.h"

namespace compiler_gym::kernels::internal {
namespace {

// A sort key packs (flow, source, target) into 64 bits: 2 bits of flow, 31 of each node id.
constexpr int kNodeBits = 31;
constexpr uint64_t kNodeMask = (uint64_t{1} << kNodeBits) - 1;
constexpr int64_t kMaxNodes = int64_t{1} << kNodeBits;
static_assert(kNumGraphFlows <= 4, "the flow must fit in the sort key's top two bits");

// The graph that element i belongs to: the g with offsets[g] <= i < offsets[g + 1]. A binary
// search keeps every thread busy however unevenly the graphs are sized (empty ones included).
__device__ int64_t GraphOf(const int64_t* offsets, int64_t num_graphs, int64_t i) {
  int64_t lo = 0;           // offsets[lo] <= i
  int64_t hi = num_graphs;  // i < offsets[hi]
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (offsets[mid] <= i) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

__global__ void NodeKernel(const int64_t* __restrict__ ptr, int64_t num_graphs,
                           const int64_t* __restrict__ text, const int64_t* __restrict__ type,
                           int64_t num_nodes, int64_t* __restrict__ x,
                           int64_t* __restrict__ node_type, int64_t* __restrict__ batch) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < num_nodes;
       i += int64_t{gridDim.x} * blockDim.x) {
    x[i] = text[i];
    node_type[i] = type[i];
    batch[i] = GraphOf(ptr, num_graphs, i);
  }
}

struct EdgeInputs {
  const int64_t* source;
  const int64_t* target;
  const int64_t* flow;
  const int64_t* position;
};

__global__ void EdgeKernel(const int64_t* __restrict__ ptr,
                           const int64_t* __restrict__ edge_offsets, int64_t num_graphs,
                           EdgeInputs in, int64_t num_edges, int64_t* __restrict__ edge_index,
                           int64_t* __restrict__ flow, int64_t* __restrict__ position,
                           uint64_t* __restrict__ keys, int64_t* __restrict__ ids) {
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < num_edges;
       e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t first_node = ptr[GraphOf(edge_offsets, num_graphs, e)];
    const int64_t source = in.source[e] + first_node;
    const int64_t target = in.target[e] + first_node;
    edge_index[e] = source;
    edge_index[num_edges + e] = target;
    flow[e] = in.flow[e];
    position[e] = in.position[e];
    keys[e] = (static_cast<uint64_t>(in.flow[e]) << (2 * kNodeBits)) |
              (static_cast<uint64_t>(source) << kNodeBits) | static_cast<uint64_t>(target);
    ids[e] = e;
  }
}

struct CsrOutputs {
  int64_t* col[kNumGraphFlows];
  int64_t* edge[kNumGraphFlows];
  int64_t first[kNumGraphFlows];  // where each flow starts among the sorted edges
};

// Scatters the sorted edges into each flow's CSR arrays and counts each row's length (integer
// atomics: the counts do not depend on the order of the additions).
__global__ void CsrKernel(const uint64_t* __restrict__ keys, const int64_t* __restrict__ ids,
                          int64_t num_edges, int64_t num_nodes, CsrOutputs out,
                          unsigned long long* __restrict__ row_lengths) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < num_edges;
       i += int64_t{gridDim.x} * blockDim.x) {
    const uint64_t key = keys[i];
    const int f = static_cast<int>(key >> (2 * kNodeBits));
    const int64_t source = static_cast<int64_t>((key >> kNodeBits) & kNodeMask);
    const int64_t slot = i - out.first[f];
    out.col[f][slot] = static_cast<int64_t>(key & kNodeMask);
    out.edge[f][slot] = ids[i];
    atomicAdd(&row_lengths[f * (num_nodes + 1) + source], 1ull);
  }
}

Status AllocateInts(DeviceBuffer& buffer, int64_t count, cudaStream_t stream) {
  ASSIGN_OR_RETURN(buffer,
                   DeviceBuffer::Allocate(Device::kCuda, count * sizeof(int64_t), false, stream));
  return Status::Ok();
}

}  // namespace

StatusOr<GraphBatch> AssembleGraphBatchCuda(const GraphBatchInput& in,
                                            const GraphBatchLayout& layout, void* stream_arg) {
  const int64_t num_graphs = layout.num_graphs;
  const int64_t num_nodes = layout.num_nodes;
  const int64_t num_edges = layout.num_edges;
  if (num_nodes > kMaxNodes) {
    return ResourceExhausted("a graph batch on CUDA holds at most 2^31 nodes, not " +
                             std::to_string(num_nodes));
  }
  cudaStream_t stream = ResolveStream(stream_arg);

  // One upload: [node_counts, 0][edge_counts, 0][text][type][source][target][flow][position].
  // The trailing zeros make the exclusive scans produce the totals as their last entry.
  const int64_t counts_size = num_graphs + 1;
  std::vector<int64_t> staging;
  staging.reserve(2 * counts_size + 2 * num_nodes + 4 * num_edges);
  for (const GraphView& graph : in.graphs) staging.push_back(graph.num_nodes());
  staging.push_back(0);
  for (const GraphView& graph : in.graphs) staging.push_back(graph.num_edges());
  staging.push_back(0);
  for (auto array : {&GraphView::node_text, &GraphView::node_type, &GraphView::edge_source,
                     &GraphView::edge_target, &GraphView::edge_flow, &GraphView::edge_position}) {
    for (const GraphView& graph : in.graphs) {
      staging.insert(staging.end(), (graph.*array).begin(), (graph.*array).end());
    }
  }
  ASSIGN_OR_RETURN(DeviceBuffer inputs,
                   DeviceBuffer::FromHost(staging.data(), staging.size() * sizeof(int64_t),
                                          Device::kCuda, stream));
  const int64_t* node_counts = inputs.as<const int64_t>();
  const int64_t* edge_counts = node_counts + counts_size;
  const int64_t* text = edge_counts + counts_size;
  const int64_t* type = text + num_nodes;
  const EdgeInputs edges{type + num_nodes, type + num_nodes + num_edges,
                         type + num_nodes + 2 * num_edges, type + num_nodes + 3 * num_edges};

  GraphBatch out;
  out.num_graphs = num_graphs;
  out.num_nodes = num_nodes;
  out.num_edges = num_edges;
  RETURN_IF_ERROR(AllocateInts(out.x, num_nodes, stream));
  RETURN_IF_ERROR(AllocateInts(out.node_type, num_nodes, stream));
  RETURN_IF_ERROR(AllocateInts(out.edge_index, 2 * num_edges, stream));
  RETURN_IF_ERROR(AllocateInts(out.edge_flow, num_edges, stream));
  RETURN_IF_ERROR(AllocateInts(out.edge_position, num_edges, stream));
  RETURN_IF_ERROR(AllocateInts(out.batch, num_nodes, stream));
  RETURN_IF_ERROR(AllocateInts(out.ptr, counts_size, stream));
  CsrOutputs csr{};
  int64_t first = 0;
  for (int f = 0; f < kNumGraphFlows; ++f) {
    out.flow_edges[f] = layout.flow_offsets.back()[f];
    RETURN_IF_ERROR(AllocateInts(out.csr_row_ptr[f], num_nodes + 1, stream));
    RETURN_IF_ERROR(AllocateInts(out.csr_col[f], out.flow_edges[f], stream));
    RETURN_IF_ERROR(AllocateInts(out.csr_edge[f], out.flow_edges[f], stream));
    csr.col[f] = out.csr_col[f].as<int64_t>();
    csr.edge[f] = out.csr_edge[f].as<int64_t>();
    csr.first[f] = first;
    first += out.flow_edges[f];
  }
  // Scratch, freed stream-ordered when this function returns (after the work it feeds).
  DeviceBuffer edge_offsets, keys, ids, row_lengths;
  RETURN_IF_ERROR(AllocateInts(edge_offsets, counts_size, stream));
  RETURN_IF_ERROR(AllocateInts(keys, num_edges, stream));
  RETURN_IF_ERROR(AllocateInts(ids, num_edges, stream));
  RETURN_IF_ERROR(AllocateInts(row_lengths, kNumGraphFlows * (num_nodes + 1), stream));
  CG_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(row_lengths.data(), 0, row_lengths.size(), stream));

  const auto policy = thrust::cuda::par_nosync(StreamScratchAllocator(stream)).on(stream);
  int64_t* ptr = out.ptr.as<int64_t>();
  RETURN_IF_ERROR(CatchThrust("graph batch offsets", [&] {
    thrust::exclusive_scan(policy, node_counts, node_counts + counts_size, ptr);
    thrust::exclusive_scan(policy, edge_counts, edge_counts + counts_size,
                           edge_offsets.as<int64_t>());
  }));
  if (num_nodes > 0) {
    NodeKernel<<<GridFor(num_nodes), kThreadsPerBlock, 0, stream>>>(
        ptr, num_graphs, text, type, num_nodes, out.x.as<int64_t>(), out.node_type.as<int64_t>(),
        out.batch.as<int64_t>());
    CG_CUDA_RETURN_IF_ERROR(cudaGetLastError());
  }
  if (num_edges > 0) {
    EdgeKernel<<<GridFor(num_edges), kThreadsPerBlock, 0, stream>>>(
        ptr, edge_offsets.as<int64_t>(), num_graphs, edges, num_edges, out.edge_index.as<int64_t>(),
        out.edge_flow.as<int64_t>(), out.edge_position.as<int64_t>(), keys.as<uint64_t>(),
        ids.as<int64_t>());
    CG_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    RETURN_IF_ERROR(CatchThrust("graph batch CSR sort", [&] {
      thrust::stable_sort_by_key(policy, keys.as<uint64_t>(), keys.as<uint64_t>() + num_edges,
                                 ids.as<int64_t>());
    }));
    CsrKernel<<<GridFor(num_edges), kThreadsPerBlock, 0, stream>>>(
        keys.as<const uint64_t>(), ids.as<const int64_t>(), num_edges, num_nodes, csr,
        row_lengths.as<unsigned long long>());
    CG_CUDA_RETURN_IF_ERROR(cudaGetLastError());
  }
  RETURN_IF_ERROR(CatchThrust("graph batch CSR rows", [&] {
    for (int f = 0; f < kNumGraphFlows; ++f) {
      const int64_t* lengths = row_lengths.as<const int64_t>() + f * (num_nodes + 1);
      thrust::exclusive_scan(policy, lengths, lengths + num_nodes + 1,
                             out.csr_row_ptr[f].as<int64_t>());
    }
  }));
  return out;
}

}  // namespace compiler_gym::kernels::internal
