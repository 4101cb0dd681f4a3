// DeviceArray: a kernels::DeviceBuffer viewed as a typed, C-contiguous tensor, handed to PyTorch
// through DLPack (`torch.from_dlpack(array)`), without a copy, on the CPU or a CUDA device.
//
// Stream semantics (the DLPack protocol): for a CUDA array, __dlpack__(stream=s) orders the
// consumer's stream s after the engine stream that filled the buffer (an event, no host wait),
// so PyTorch may use the tensor on s at once. The capsule keeps the buffer alive.
//
//   DeviceArray array(std::move(buffer), DType::kFloat32, {rows, dim});  // buffer: rows * dim
//   return pybind11::cast(std::move(array));  // in Python: torch.from_dlpack(array)
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <vector>

#include "engine/space.h"
#include "kernels/device.h"

namespace compiler_gym::python {

class DeviceArray {
 public:
  DeviceArray(kernels::DeviceBuffer buffer, DType dtype, std::vector<int64_t> shape);

  pybind11::capsule Dlpack(pybind11::object stream) const;
  pybind11::tuple DlpackDevice() const;
  const std::vector<int64_t>& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  const kernels::DeviceBuffer& buffer() const { return buffer_; }

 private:
  kernels::DeviceBuffer buffer_;
  DType dtype_;
  std::vector<int64_t> shape_;
};

void BindDeviceArray(pybind11::module_& m);

}  // namespace compiler_gym::python
