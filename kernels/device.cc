// DeviceBuffer's allocation and copies (host blocks pooled, CUDA memory from the stream-ordered
// pool where the device has one), the engine stream, DLPack stream helpers and NVTX ranges.
#include "kernels/device.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#ifdef CG_WITH_CUDA
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include "kernels/cuda_util.h"
#endif

namespace compiler_gym::kernels {
namespace {

// A cache line: enough for any SIMD load and keeps two buffers from sharing a line.
constexpr size_t kHostAlignment = 64;
// Host blocks from this size on are pooled (below it, malloc keeps freed memory itself).
constexpr size_t kHostPoolMinBytes = size_t{1} << 20;
constexpr size_t kHostPoolBytes = size_t{1} << 30;

// Large host blocks freed by batches that Python released, kept for the next batches. glibc
// returns such blocks to the kernel (they are mmapped), so every batch would otherwise fault in
// and zero its pages afresh: most of a 1024-env graph batch's handoff. A block serves a
// request of at least half its size; the pool holds at most kHostPoolBytes.
class HostPool {
 public:
  static HostPool& Get() {
    static HostPool* pool = new HostPool();  // leaked: deleters may run during static teardown
    return *pool;
  }

  // A kept block of at least `bytes` and at most twice that, with its capacity; nullptr if none.
  std::pair<void*, size_t> Take(size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = blocks_.lower_bound(bytes);
    if (it == blocks_.end() || it->first / 2 > bytes) return {nullptr, 0};
    const std::pair<void*, size_t> block{it->second, it->first};
    held_ -= it->first;
    blocks_.erase(it);
    return block;
  }

  // Keeps the block, or frees it when the pool is full.
  void Give(void* data, size_t capacity) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (held_ + capacity <= kHostPoolBytes) {
        blocks_.emplace(capacity, data);
        held_ += capacity;
        return;
      }
    }
    std::free(data);
  }

  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [capacity, data] : blocks_) std::free(data);
    blocks_.clear();
    held_ = 0;
  }

  size_t held() {
    std::lock_guard<std::mutex> lock(mu_);
    return held_;
  }

 private:
  std::mutex mu_;
  std::multimap<size_t, void*> blocks_;  // capacity -> block
  size_t held_ = 0;
};

StatusOr<std::shared_ptr<void>> AllocateHost(size_t bytes) {
  if (bytes > SIZE_MAX - kHostAlignment) {
    return ResourceExhausted("cannot allocate " + std::to_string(bytes) + " bytes");
  }
  // aligned_alloc wants a multiple of the alignment; at least one line so data() is never null.
  const size_t rounded =
      std::max(kHostAlignment, (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment);
  auto [data, capacity] = rounded >= kHostPoolMinBytes ? HostPool::Get().Take(rounded)
                                                       : std::pair<void*, size_t>{nullptr, 0};
  if (data == nullptr) {
    data = std::aligned_alloc(kHostAlignment, rounded);
    capacity = rounded;
  }
  if (data == nullptr) {
    return ResourceExhausted("out of host memory allocating " + std::to_string(bytes) + " bytes");
  }
  if (capacity < kHostPoolMinBytes)
    return std::shared_ptr<void>(data, [](void* p) { std::free(p); });
  return std::shared_ptr<void>(data, [capacity](void* p) { HostPool::Get().Give(p, capacity); });
}

#ifdef CG_WITH_CUDA
// Whether the current device supports cudaMallocAsync; asked once (one device per process).
bool MemoryPoolsSupported() {
  static const bool supported = [] {
    int device = 0;
    int value = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&value, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    return value != 0;
  }();
  return supported;
}
#endif

}  // namespace

#ifdef CG_WITH_CUDA
Status CudaStatus(cudaError_t error, std::string_view what) {
  if (error == cudaSuccess) return Status::Ok();
  (void)cudaGetLastError();
  std::string message =
      std::string(what) + ": " + cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")";
  if (error == cudaErrorMemoryAllocation) return ResourceExhausted(std::move(message));
  return Internal(std::move(message));
}

cudaStream_t ResolveStream(void* stream) {
  return static_cast<cudaStream_t>(stream != nullptr ? stream : EngineStream());
}

cudaError_t StreamMalloc(void** ptr, size_t bytes, cudaStream_t stream) {
  // A zero-byte request would give nullptr; callers rely on a real pointer.
  bytes = std::max<size_t>(bytes, 1);
  return MemoryPoolsSupported() ? cudaMallocAsync(ptr, bytes, stream) : cudaMalloc(ptr, bytes);
}

cudaError_t StreamFree(void* ptr, cudaStream_t stream) {
  return MemoryPoolsSupported() ? cudaFreeAsync(ptr, stream) : cudaFree(ptr);
}
#endif

bool CompiledWithCuda() {
#ifdef CG_WITH_CUDA
  return true;
#else
  return false;
#endif
}

int CudaDeviceCount() {
#ifdef CG_WITH_CUDA
  // Devices do not come and go during a run (CUDA reads CUDA_VISIBLE_DEVICES once), so ask once.
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      // No driver, no device, or a driver older than the runtime: all mean "no GPU here".
      (void)cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
#else
  return 0;
#endif
}

Status CheckDevice(Device device) {
  if (device == Device::kCpu) return Status::Ok();
  if (!CompiledWithCuda()) {
    return Unavailable(
        "device cuda: compiled without CUDA (nvcc was not found at build time, or the build "
        "set CG_WITH_CUDA=OFF)");
  }
  if (CudaDeviceCount() == 0) return Unavailable("device cuda: no CUDA device is available");
  return Status::Ok();
}

size_t HostPoolBytesHeld() { return HostPool::Get().held(); }

void ClearHostPool() { HostPool::Get().Clear(); }

StatusOr<DeviceBuffer> DeviceBuffer::Allocate(Device device, size_t bytes, bool pinned,
                                              void* stream) {
  RETURN_IF_ERROR(CheckDevice(device));
  DeviceBuffer buffer;
  buffer.size_ = bytes;
  buffer.device_ = device;
#ifdef CG_WITH_CUDA
  if (device == Device::kCuda) {
    cudaStream_t cuda_stream = ResolveStream(stream);
    void* data = nullptr;
    CG_CUDA_RETURN_IF_ERROR(StreamMalloc(&data, bytes, cuda_stream));
    buffer.stream_ = cuda_stream;
    buffer.data_ = std::shared_ptr<void>(data, [cuda_stream](void* p) {
      // Deleters cannot report errors; the one expected here is the runtime already unloaded at
      // exit. Clear it so that it does not surface in an unrelated later check.
      if (StreamFree(p, cuda_stream) != cudaSuccess) (void)cudaGetLastError();
    });
    return buffer;
  }
  if (pinned && CudaDeviceCount() > 0) {
    void* data = nullptr;
    CG_CUDA_RETURN_IF_ERROR(cudaMallocHost(&data, std::max<size_t>(bytes, 1)));
    buffer.data_ = std::shared_ptr<void>(data, [](void* p) {
      if (cudaFreeHost(p) != cudaSuccess) (void)cudaGetLastError();
    });
    return buffer;
  }
#endif
  ASSIGN_OR_RETURN(buffer.data_, AllocateHost(bytes));
  return buffer;
}

StatusOr<DeviceBuffer> DeviceBuffer::FromHost(const void* data, size_t bytes, Device device,
                                              void* stream) {
  if (data == nullptr && bytes > 0) return InvalidArgument("FromHost: null data with bytes > 0");
  ASSIGN_OR_RETURN(DeviceBuffer buffer, Allocate(device, bytes, /*pinned=*/false, stream));
  if (bytes == 0) return buffer;
#ifdef CG_WITH_CUDA
  if (device == Device::kCuda) {
    CG_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(buffer.data(), data, bytes, cudaMemcpyHostToDevice,
                                            static_cast<cudaStream_t>(buffer.stream_)));
    return buffer;
  }
#endif
  std::memcpy(buffer.data(), data, bytes);
  return buffer;
}

Status DeviceBuffer::CopyToHost(void* out) const {
  if (size_ == 0) return Status::Ok();
  if (out == nullptr) return InvalidArgument("CopyToHost: null output");
  if (data_ == nullptr) return FailedPrecondition("CopyToHost: empty DeviceBuffer");
#ifdef CG_WITH_CUDA
  if (device_ == Device::kCuda) {
    auto cuda_stream = static_cast<cudaStream_t>(stream_);
    CG_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(out, data_.get(), size_, cudaMemcpyDeviceToHost, cuda_stream));
    CG_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(cuda_stream));
    return Status::Ok();
  }
#endif
  std::memcpy(out, data_.get(), size_);
  return Status::Ok();
}

void* EngineStream() {
#ifdef CG_WITH_CUDA
  // A function-local static is initialized once even under concurrent first calls. Never
  // destroyed: at exit the runtime may already be gone, and buffers freed late still need it.
  static cudaStream_t const stream = []() -> cudaStream_t {
    if (CudaDeviceCount() == 0) return nullptr;
    cudaStream_t s = nullptr;
    // Non-blocking: the engine's copies must not serialize with the legacy default stream.
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
      (void)cudaGetLastError();
      return nullptr;
    }
    return s;
  }();
  return stream;
#else
  return nullptr;
#endif
}

Status SynchronizeStream(void* stream) {
#ifdef CG_WITH_CUDA
  if (CudaDeviceCount() == 0) return Status::Ok();
  return CudaStatus(cudaStreamSynchronize(ResolveStream(stream)), "cudaStreamSynchronize");
#else
  return Status::Ok();
#endif
}

void* DlpackStream(int64_t stream) {
#ifdef CG_WITH_CUDA
  switch (stream) {
    case 0:
    case 1:
      return cudaStreamLegacy;
    case 2:
      return cudaStreamPerThread;
    default:
      return reinterpret_cast<void*>(static_cast<intptr_t>(stream));
  }
#else
  return nullptr;
#endif
}

Status OrderStreamAfter(void* consumer, void* producer) {
#ifdef CG_WITH_CUDA
  if (CudaDeviceCount() == 0) return Status::Ok();
  cudaStream_t waiter = ResolveStream(consumer);
  cudaStream_t signaller = ResolveStream(producer);
  if (waiter == signaller) return Status::Ok();
  cudaEvent_t event = nullptr;
  CG_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  Status status = CudaStatus(cudaEventRecord(event, signaller), "cudaEventRecord");
  if (status.ok()) {
    status = CudaStatus(cudaStreamWaitEvent(waiter, event, 0), "cudaStreamWaitEvent");
  }
  // Destroying an event that a stream still waits on is fine: CUDA releases it when done.
  (void)cudaEventDestroy(event);
  return status;
#else
  return Status::Ok();
#endif
}

int CudaDeviceOf(const DeviceBuffer& buffer) {
  if (buffer.device() != Device::kCuda) return -1;
#ifdef CG_WITH_CUDA
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, buffer.data()) == cudaSuccess) {
    return attributes.device;
  }
  (void)cudaGetLastError();
#endif
  return 0;
}

NvtxRange::NvtxRange(const char* name) {
#ifdef CG_WITH_CUDA
  nvtxRangePushA(name);
#endif
}

NvtxRange::~NvtxRange() {
#ifdef CG_WITH_CUDA
  nvtxRangePop();
#endif
}

}  // namespace compiler_gym::kernels
