// Internal to kernels/: device-side helpers shared by the .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <string>

#include "engine/status.h"
#include "kernels/cuda_util.h"

namespace compiler_gym::kernels::internal {

inline constexpr int kThreadsPerBlock = 256;

// Blocks for a grid-stride loop over `n` items: enough to fill any current GPU, capped so the
// grid size stays far below the launch limit for very large batches.
inline unsigned GridFor(int64_t n, int items_per_block = kThreadsPerBlock) {
  return static_cast<unsigned>(std::clamp<int64_t>((n + items_per_block - 1) / items_per_block,
                                                   int64_t{1}, int64_t{1} << 16));
}

// Thrust's scratch memory, stream-ordered like every other allocation in kernels/, so that a
// Thrust call neither synchronizes the device (cudaFree would) nor races with the stream.
class StreamScratchAllocator {
 public:
  using value_type = char;
  explicit StreamScratchAllocator(cudaStream_t stream) : stream_(stream) {}
  char* allocate(std::ptrdiff_t bytes) {
    void* data = nullptr;
    if (StreamMalloc(&data, static_cast<size_t>(bytes), stream_) != cudaSuccess) {
      (void)cudaGetLastError();
      throw std::bad_alloc();
    }
    return static_cast<char*>(data);
  }
  void deallocate(char* data, size_t) {
    if (StreamFree(data, stream_) != cudaSuccess) (void)cudaGetLastError();
  }

 private:
  cudaStream_t stream_;
};

// Thrust reports failures by throwing; turn them into a Status at the kernels/ boundary.
template <typename Fn>
Status CatchThrust(const char* what, Fn&& fn) {
  try {
    fn();
  } catch (const std::bad_alloc&) {
    (void)cudaGetLastError();
    return ResourceExhausted(std::string(what) + ": out of device memory");
  } catch (const std::exception& e) {
    (void)cudaGetLastError();
    return Internal(std::string(what) + ": " + e.what());
  }
  return Status::Ok();
}

}  // namespace compiler_gym::kernels::internal
