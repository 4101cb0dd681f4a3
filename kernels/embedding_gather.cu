// The CUDA path of GatherEmbeddings: one warp per output row (sequence, position), copying a
// table row or writing zeros. Pure copies, so bit-identical to the CPU twin.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cuda_util.cuh"
#include "kernels/internal.h"

namespace compiler_gym::kernels::internal {
namespace {

constexpr int kWarpSize = 32;
constexpr int kWarpsPerBlock = kThreadsPerBlock / kWarpSize;

// `Vec` is float, or float4 when the row width allows 16-byte loads and stores (device buffers
// are 256-byte aligned, so rows of a multiple of 4 floats stay aligned). `width` counts Vecs.
template <typename Vec>
__global__ void GatherKernel(const Vec* __restrict__ table, int64_t width,
                             const int64_t* __restrict__ offsets,
                             const int64_t* __restrict__ indices,
                             const int64_t* __restrict__ lengths, int64_t num_sequences,
                             int64_t max_length, Vec* __restrict__ out) {
  const int lane = threadIdx.x % kWarpSize;
  const int64_t rows = num_sequences * max_length;
  for (int64_t row = blockIdx.x * int64_t{kWarpsPerBlock} + threadIdx.x / kWarpSize; row < rows;
       row += int64_t{gridDim.x} * kWarpsPerBlock) {
    const int64_t g = row / max_length;
    const int64_t p = row - g * max_length;
    Vec* dst = out + row * width;
    if (p < lengths[g]) {
      const Vec* src = table + indices[offsets[g] + p] * width;
      for (int64_t j = lane; j < width; j += kWarpSize) dst[j] = src[j];
    } else {
      for (int64_t j = lane; j < width; j += kWarpSize) dst[j] = Vec{};
    }
  }
}

}  // namespace

StatusOr<PaddedEmbeddings> GatherEmbeddingsCuda(const EmbeddingTable& table,
                                                std::span<const int64_t> indices,
                                                std::span<const int64_t> offsets,
                                                const GatherLayout& layout, void* stream_arg) {
  cudaStream_t stream = ResolveStream(stream_arg);
  const int64_t dim = table.dim();
  PaddedEmbeddings out;
  out.num_sequences = layout.num_sequences;
  out.max_length = layout.max_length;
  out.dim = dim;
  const int64_t rows = layout.num_sequences * layout.max_length;
  ASSIGN_OR_RETURN(
      out.values, DeviceBuffer::Allocate(Device::kCuda, rows * dim * sizeof(float), false, stream));
  ASSIGN_OR_RETURN(out.lengths, DeviceBuffer::FromHost(layout.lengths.data(),
                                                       layout.lengths.size() * sizeof(int64_t),
                                                       Device::kCuda, stream));
  if (rows == 0 || dim == 0) return out;

  // One upload for the kernel's inputs: [offsets][indices].
  std::vector<int64_t> staging(offsets.begin(), offsets.end());
  staging.insert(staging.end(), indices.begin(), indices.end());
  ASSIGN_OR_RETURN(DeviceBuffer inputs,
                   DeviceBuffer::FromHost(staging.data(), staging.size() * sizeof(int64_t),
                                          Device::kCuda, stream));
  const int64_t* device_offsets = inputs.as<const int64_t>();
  const int64_t* device_indices = device_offsets + offsets.size();
  const unsigned grid = GridFor(rows, kWarpsPerBlock);
  // Pool allocations are 256-byte aligned in practice; check rather than assume.
  const bool aligned = reinterpret_cast<uintptr_t>(table.data()) % alignof(float4) == 0 &&
                       reinterpret_cast<uintptr_t>(out.values.data()) % alignof(float4) == 0;
  if (dim % 4 == 0 && aligned) {
    GatherKernel<float4><<<grid, kThreadsPerBlock, 0, stream>>>(
        reinterpret_cast<const float4*>(table.data()), dim / 4, device_offsets, device_indices,
        out.lengths.as<const int64_t>(), layout.num_sequences, layout.max_length,
        out.values.as<float4>());
  } else {
    GatherKernel<float><<<grid, kThreadsPerBlock, 0, stream>>>(
        table.data(), dim, device_offsets, device_indices, out.lengths.as<const int64_t>(),
        layout.num_sequences, layout.max_length, out.values.as<float>());
  }
  CG_CUDA_RETURN_IF_ERROR(cudaGetLastError());
  return out;
}

}  // namespace compiler_gym::kernels::internal
