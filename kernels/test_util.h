// Helpers for the kernels/ tests only.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/device.h"

namespace compiler_gym::kernels::testing {

// The contents of `buffer` on the host, whatever its device.
template <typename T>
std::vector<T> ToHost(const DeviceBuffer& buffer) {
  std::vector<T> values(buffer.size() / sizeof(T));
  Status status = buffer.CopyToHost(values.data());
  EXPECT_TRUE(status.ok()) << status.ToString();
  return values;
}

inline bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The reason a CUDA test skips on this machine, or "" when it can run.
inline std::string CudaSkipReason() {
  if (!CompiledWithCuda()) return "no CUDA device: compiled without CUDA";
  if (CudaDeviceCount() == 0) return "no CUDA device: none visible to the CUDA runtime";
  return "";
}

}  // namespace compiler_gym::kernels::testing

// Skips the current test when no CUDA device can run it.
#define CG_SKIP_WITHOUT_CUDA()                                                             \
  do {                                                                                     \
    const std::string cg_skip_reason = ::compiler_gym::kernels::testing::CudaSkipReason(); \
    if (!cg_skip_reason.empty()) GTEST_SKIP() << cg_skip_reason;                           \
  } while (0)
