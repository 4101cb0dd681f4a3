// Device memory for the kernels: a buffer on the host or on a CUDA device, the engine's CUDA
// stream, and NVTX ranges. Everything here compiles without CUDA: then only kCpu exists and
// asking for kCuda is a clear kUnavailable.
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
// OK when `device` can be used here; kUnavailable saying why not otherwise.
Status CheckDevice(Device device);

// An owned, contiguous byte buffer on one device. Host buffers of a CUDA build are pinned
// (page-locked) when `pinned` so that copies to the device are asynchronous.
//
// Streams: a `void*` stream argument is a cudaStream_t; nullptr means EngineStream(). A device
// buffer is allocated stream-ordered on its stream (cudaMallocAsync where the device has memory
// pools) and freed on that same stream when the last shared owner lets go, so the stream must
// outlive the buffer (the engine stream and PyTorch's streams are never destroyed). Work on
// another stream that reads the buffer must be ordered after its stream (DLPack's protocol), and
// since the free is ordered on stream() only, such a reader must also be done, or be ordered
// before stream() with OrderStreamAfter(stream(), reader), before the last owner lets go.
//
//   ASSIGN_OR_RETURN(DeviceBuffer b, DeviceBuffer::FromHost(v.data(), bytes, Device::kCuda));
//   RETURN_IF_ERROR(b.CopyToHost(out.data()));
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // Never returns a null data() for an OK result, even for 0 bytes. `pinned` is a request: a
  // build or machine without CUDA gives ordinary aligned host memory. `stream` is used for kCuda.
  static StatusOr<DeviceBuffer> Allocate(Device device, size_t bytes, bool pinned = false,
                                         void* stream = nullptr);
  // Copies `bytes` from host memory into a new buffer on `device` (on `stream` for kCuda). The
  // copy is asynchronous; pageable `data` may be released on return (CUDA stages it), pinned
  // `data` must stay untouched until the stream has done the copy.
  static StatusOr<DeviceBuffer> FromHost(const void* data, size_t bytes, Device device,
                                         void* stream = nullptr);

  void* data() const { return data_.get(); }
  size_t size() const { return size_; }
  Device device() const { return device_; }
  // The cudaStream_t the buffer was allocated (and is filled and freed) on; nullptr on the host.
  void* stream() const { return stream_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(data_.get());
  }
  // Copies the contents to host memory (synchronously, after the work queued on stream()).
  Status CopyToHost(void* out) const;

  // Shared ownership of the memory, for exporters (DLPack) that must keep it alive.
  std::shared_ptr<void> shared() const { return data_; }

 private:
  std::shared_ptr<void> data_;
  size_t size_ = 0;
  Device device_ = Device::kCpu;
  void* stream_ = nullptr;
};

// Large host buffers (1 MiB and up) are recycled: when the last reference goes, the block is
// kept (up to 1 GiB in all) and serves a later request of at least half its size, so batches of
// similar size reuse memory that is already mapped. These report and release what is kept.
size_t HostPoolBytesHeld();
void ClearHostPool();

// The engine's CUDA stream: one non-blocking stream on the device current at first use, created
// on first use (thread-safe) and never destroyed; nullptr without CUDA or without a device.
// Batches are copied and assembled on it; consumers synchronize through DLPack's stream protocol.
void* EngineStream();
// Blocks until the work queued on `stream` (nullptr: the engine stream) is done; OK at once
// without CUDA or without a device.
Status SynchronizeStream(void* stream);

// DLPack's stream protocol (`__dlpack__(stream=...)`), for the exporters in torch_ext/.
// The cudaStream_t a DLPack stream integer names: 1 (and the ambiguous 0) CUDA's legacy default
// stream, 2 the per-thread default stream, any other value a cudaStream_t. nullptr without CUDA.
void* DlpackStream(int64_t stream);
// Makes work queued on `consumer` from now on wait for the work queued so far on `producer`
// (an event, no host wait). nullptr means the engine stream; OK at once without CUDA or when
// both are the same stream.
Status OrderStreamAfter(void* consumer, void* producer);
// The CUDA device ordinal that holds a kCuda buffer; -1 for host buffers.
int CudaDeviceOf(const DeviceBuffer& buffer);

// An NVTX range around an engine phase, visible in Nsight Systems; free without CUDA.
class NvtxRange {
 public:
  explicit NvtxRange(const char* name);
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace compiler_gym::kernels
