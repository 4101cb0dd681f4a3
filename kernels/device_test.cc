// Tests of DeviceBuffer, the host pool and the stream helpers on the CPU everywhere; the
// DeviceBufferCuda cases run where a GPU is present and are skipped elsewhere.
#include "kernels/device.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "kernels/test_util.h"

namespace compiler_gym::kernels {
namespace {

using testing::Contains;
using testing::ToHost;

TEST(Device, CompiledWithCudaMatchesTheBuild) {
#ifdef CG_WITH_CUDA
  EXPECT_TRUE(CompiledWithCuda());
#else
  EXPECT_FALSE(CompiledWithCuda());
  EXPECT_EQ(CudaDeviceCount(), 0);
  EXPECT_EQ(EngineStream(), nullptr);
#endif
  EXPECT_GE(CudaDeviceCount(), 0);
}

TEST(Device, CpuIsAlwaysAvailable) { EXPECT_TRUE(CheckDevice(Device::kCpu).ok()); }

TEST(Device, CudaWithoutADeviceIsUnavailable) {
  if (CudaDeviceCount() > 0) GTEST_SKIP() << "a CUDA device is available here";
  Status status = CheckDevice(Device::kCuda);
  EXPECT_EQ(status.code(), StatusCode::kUnavailable);
  EXPECT_TRUE(Contains(status.message(), CompiledWithCuda() ? "no CUDA device is available"
                                                            : "compiled without CUDA"))
      << status.message();
  auto buffer = DeviceBuffer::Allocate(Device::kCuda, 16);
  EXPECT_EQ(buffer.status().code(), StatusCode::kUnavailable);
  int64_t value = 1;
  auto copied = DeviceBuffer::FromHost(&value, sizeof(value), Device::kCuda);
  EXPECT_EQ(copied.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(EngineStream(), nullptr);
}

TEST(DeviceBuffer, HostRoundTrip) {
  std::vector<int64_t> values(1000);
  std::iota(values.begin(), values.end(), -7);
  auto buffer =
      DeviceBuffer::FromHost(values.data(), values.size() * sizeof(int64_t), Device::kCpu);
  ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
  EXPECT_EQ(buffer->device(), Device::kCpu);
  EXPECT_EQ(buffer->size(), values.size() * sizeof(int64_t));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer->data()) % 64, 0u);
  EXPECT_NE(buffer->data(), static_cast<const void*>(values.data()));
  EXPECT_EQ(ToHost<int64_t>(*buffer), values);
  // The copy owns its memory: changing the source does not change it.
  values[3] = 99;
  EXPECT_EQ(buffer->as<int64_t>()[3], -4);
}

TEST(DeviceBuffer, ZeroBytesStillHasAPointer) {
  auto buffer = DeviceBuffer::Allocate(Device::kCpu, 0);
  ASSERT_TRUE(buffer.ok());
  EXPECT_EQ(buffer->size(), 0u);
  EXPECT_NE(buffer->data(), nullptr);
  EXPECT_TRUE(buffer->CopyToHost(nullptr).ok());
  auto empty = DeviceBuffer::FromHost(nullptr, 0, Device::kCpu);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->size(), 0u);
}

TEST(DeviceBuffer, RejectsNullSourceAndOutput) {
  EXPECT_EQ(DeviceBuffer::FromHost(nullptr, 8, Device::kCpu).status().code(),
            StatusCode::kInvalidArgument);
  auto buffer = DeviceBuffer::Allocate(Device::kCpu, 8);
  ASSERT_TRUE(buffer.ok());
  EXPECT_EQ(buffer->CopyToHost(nullptr).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(DeviceBuffer().CopyToHost(nullptr).code(), StatusCode::kOk);  // 0 bytes: nothing to do
}

TEST(DeviceBuffer, PinnedHostFallsBackWithoutAGpu) {
  // Pinned is a request: with a GPU it is page-locked memory, without one ordinary memory.
  auto buffer = DeviceBuffer::Allocate(Device::kCpu, 3 * sizeof(float), /*pinned=*/true);
  ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
  float* data = buffer->as<float>();
  data[0] = 0.5f;
  data[1] = -1.0f;
  data[2] = 2.5f;
  EXPECT_EQ(ToHost<float>(*buffer), (std::vector<float>{0.5f, -1.0f, 2.5f}));
}

TEST(DeviceBuffer, SharedKeepsTheMemoryAlive) {
  std::shared_ptr<void> kept;
  {
    int32_t value = 42;
    auto buffer = DeviceBuffer::FromHost(&value, sizeof(value), Device::kCpu);
    ASSERT_TRUE(buffer.ok());
    kept = buffer->shared();
  }
  EXPECT_EQ(*static_cast<int32_t*>(kept.get()), 42);
}

TEST(DeviceBuffer, LargeHostBlocksAreRecycled) {
  ClearHostPool();
  constexpr size_t kMiB = size_t{1} << 20;
  void* first = nullptr;
  {
    auto a = DeviceBuffer::Allocate(Device::kCpu, 8 * kMiB);
    ASSERT_TRUE(a.ok());
    first = a->data();
    auto small = DeviceBuffer::Allocate(Device::kCpu, 1000);  // below the pooled size
    ASSERT_TRUE(small.ok());
  }
  EXPECT_EQ(HostPoolBytesHeld(), 8 * kMiB);
  {
    // Twice the request is too wasteful: a new block.
    auto tiny = DeviceBuffer::Allocate(Device::kCpu, 3 * kMiB);
    ASSERT_TRUE(tiny.ok());
    EXPECT_NE(tiny->data(), first);
    EXPECT_EQ(HostPoolBytesHeld(), 8 * kMiB);
  }
  EXPECT_EQ(HostPoolBytesHeld(), 8 * kMiB + 3 * kMiB);
  {
    // A slightly smaller request takes the kept 8 MiB block; its contents are overwritable.
    auto b = DeviceBuffer::Allocate(Device::kCpu, 7 * kMiB);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b->data(), first);
    std::vector<uint8_t> ones(7 * kMiB, 1);
    std::memcpy(b->data(), ones.data(), ones.size());
    EXPECT_EQ(HostPoolBytesHeld(), 3 * kMiB);
  }
  ClearHostPool();
  EXPECT_EQ(HostPoolBytesHeld(), 0u);
}

TEST(DeviceBuffer, TheHostPoolIsBounded) {
  ClearHostPool();
  constexpr size_t kMiB = size_t{1} << 20;
  {
    std::vector<DeviceBuffer> buffers;
    for (int i = 0; i < 5; ++i) {
      auto b = DeviceBuffer::Allocate(Device::kCpu, 300 * kMiB);
      ASSERT_TRUE(b.ok());
      buffers.push_back(*std::move(b));
    }
  }
  EXPECT_EQ(HostPoolBytesHeld(), 900 * kMiB);  // three fit in 1 GiB; two were freed
  ClearHostPool();
}

TEST(Stream, SynchronizeAndNvtxWorkEverywhere) {
  EXPECT_TRUE(SynchronizeStream(nullptr).ok());
  EXPECT_TRUE(SynchronizeStream(EngineStream()).ok());
  NvtxRange range("device_test");
}

TEST(Stream, DlpackHelpersWithoutCuda) {
  auto buffer = DeviceBuffer::Allocate(Device::kCpu, 8);
  ASSERT_TRUE(buffer.ok());
  EXPECT_EQ(CudaDeviceOf(*buffer), -1);
  if (!CompiledWithCuda()) {
    EXPECT_EQ(DlpackStream(1), nullptr);
  } else {
    EXPECT_NE(DlpackStream(1), DlpackStream(2));
    EXPECT_EQ(DlpackStream(12345), reinterpret_cast<void*>(intptr_t{12345}));
  }
  EXPECT_TRUE(OrderStreamAfter(nullptr, nullptr).ok());
}

TEST(DeviceBufferCuda, StreamOrderingAndDeviceOrdinal) {
  CG_SKIP_WITHOUT_CUDA();
  std::vector<int64_t> values(1 << 20, 3);
  auto buffer =
      DeviceBuffer::FromHost(values.data(), values.size() * sizeof(int64_t), Device::kCuda);
  ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
  EXPECT_GE(CudaDeviceOf(*buffer), 0);
  EXPECT_LT(CudaDeviceOf(*buffer), CudaDeviceCount());
  EXPECT_TRUE(OrderStreamAfter(DlpackStream(1), buffer->stream()).ok());
  EXPECT_TRUE(OrderStreamAfter(DlpackStream(2), nullptr).ok());
  EXPECT_TRUE(OrderStreamAfter(buffer->stream(), buffer->stream()).ok());
  EXPECT_TRUE(SynchronizeStream(DlpackStream(1)).ok());
}

TEST(DeviceBufferCuda, RoundTrip) {
  CG_SKIP_WITHOUT_CUDA();
  ASSERT_NE(EngineStream(), nullptr);
  EXPECT_EQ(EngineStream(), EngineStream());
  std::vector<double> values(12345);
  std::iota(values.begin(), values.end(), 0.5);
  auto buffer =
      DeviceBuffer::FromHost(values.data(), values.size() * sizeof(double), Device::kCuda);
  ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
  EXPECT_EQ(buffer->device(), Device::kCuda);
  EXPECT_EQ(buffer->stream(), EngineStream());
  EXPECT_EQ(ToHost<double>(*buffer), values);
  auto empty = DeviceBuffer::Allocate(Device::kCuda, 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_NE(empty->data(), nullptr);
  EXPECT_TRUE(SynchronizeStream(nullptr).ok());
}

TEST(DeviceBufferCuda, PinnedHostRoundTripThroughTheDevice) {
  CG_SKIP_WITHOUT_CUDA();
  auto pinned = DeviceBuffer::Allocate(Device::kCpu, 256 * sizeof(int32_t), /*pinned=*/true);
  ASSERT_TRUE(pinned.ok());
  std::iota(pinned->as<int32_t>(), pinned->as<int32_t>() + 256, 1);
  auto device = DeviceBuffer::FromHost(pinned->data(), pinned->size(), Device::kCuda);
  ASSERT_TRUE(device.ok());
  std::vector<int32_t> back = ToHost<int32_t>(*device);
  EXPECT_EQ(back.front(), 1);
  EXPECT_EQ(back.back(), 256);
}

}  // namespace
}  // namespace compiler_gym::kernels
