// Device memory for the kernels: a buffer on the host or on a CUDA device, the engine's CUDA
// stream, and NVTX ranges. Everything here compiles without CUDA: then only kCpu exists and
// asking for kCuda is a clear kFailedPrecondition.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "engine/status.h"

namespace compiler_gym::kernels {

enum class Device { kCpu, kCuda };

// True when this build compiled the CUDA kernels (nvcc was found).
bool CompiledWithCuda();
// CUDA devices usable now: 0 without CUDA support or without a GPU.
int CudaDeviceCount();
// OK when `device` can be used here; kFailedPrecondition saying why not otherwise.
Status CheckDevice(Device device);

// An owned, contiguous byte buffer on one device. Host buffers of a CUDA build are pinned
// (page-locked) when `pinned` so that copies to the device are asynchronous.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  static StatusOr<DeviceBuffer> Allocate(Device device, size_t bytes, bool pinned = false);
  // Copies `bytes` from host memory into a new buffer on `device` (on `stream` for kCuda).
  static StatusOr<DeviceBuffer> FromHost(const void* data, size_t bytes, Device device,
                                         void* stream = nullptr);

  void* data() const { return data_.get(); }
  size_t size() const { return size_; }
  Device device() const { return device_; }
  template <typename T>
  T* as() const { return static_cast<T*>(data_.get()); }
  // Copies the contents to host memory (synchronously).
  Status CopyToHost(void* out) const;

  // Shared ownership of the memory, for exporters (DLPack) that must keep it alive.
  std::shared_ptr<void> shared() const { return data_; }

 private:
  std::shared_ptr<void> data_;
  size_t size_ = 0;
  Device device_ = Device::kCpu;
};

// The engine's CUDA stream (created on first use; nullptr without CUDA). Batches are copied and
// assembled on it; consumers synchronize through DLPack's stream protocol.
void* EngineStream();
// Blocks until the work queued on `stream` is done (no-op without CUDA).
Status SynchronizeStream(void* stream);

// An NVTX range around an engine phase, visible in Nsight Systems; free without CUDA.
class NvtxRange {
 public:
  explicit NvtxRange(const char* name);
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace compiler_gym::kernels
