// DeviceArray's DLPack protocol: capsules that own their buffer and shape, stream ordering for
// CUDA consumers, and the Python binding.
#include "torch_ext/dlpack_export.h"

#include <dlpack/dlpack.h>

#include "torch_ext/errors.h"

namespace py = pybind11;

namespace compiler_gym::python {
namespace {

DLDataType ToDlpack(DType dtype) {
  switch (dtype) {
    case DType::kInt64:
      return {kDLInt, 64, 1};
    case DType::kFloat32:
      return {kDLFloat, 32, 1};
    case DType::kFloat64:
      return {kDLFloat, 64, 1};
    case DType::kBool:  // DLPack 0.6 (Debian's) has no bool code: bytes of 0 and 1
      return {kDLUInt, 8, 1};
    default:
      return {kDLUInt, 8, 1};
  }
}

// What a capsule owns: the buffer's memory and the shape the DLTensor points at.
struct Exported {
  DLManagedTensor managed{};
  std::shared_ptr<void> memory;
  std::vector<int64_t> shape;
};

constexpr const char* kCapsuleName = "dltensor";

}  // namespace

DeviceArray::DeviceArray(kernels::DeviceBuffer buffer, DType dtype, std::vector<int64_t> shape)
    : buffer_(std::move(buffer)), dtype_(dtype), shape_(std::move(shape)) {}

py::capsule DeviceArray::Dlpack(py::object stream) const {
  if (buffer_.device() == kernels::Device::kCuda && !stream.is_none()) {
    // DLPack: 1 is CUDA's legacy default stream, 2 the per-thread default stream, -1 "do not
    // synchronize", other values a cudaStream_t.
    const int64_t s = stream.cast<int64_t>();
    if (s != -1) {
      ThrowIfError(kernels::OrderStreamAfter(kernels::DlpackStream(s), buffer_.stream()));
    }
  }
  auto* exported = new Exported;
  exported->memory = buffer_.shared();
  exported->shape = shape_;
  DLTensor& t = exported->managed.dl_tensor;
  t.data = buffer_.data();
  t.device = buffer_.device() == kernels::Device::kCuda
                 ? DLDevice{kDLCUDA, kernels::CudaDeviceOf(buffer_)}
                 : DLDevice{kDLCPU, 0};
  t.ndim = static_cast<int32_t>(exported->shape.size());
  t.dtype = ToDlpack(dtype_);
  t.shape = exported->shape.data();
  t.strides = nullptr;  // C-contiguous
  t.byte_offset = 0;
  exported->managed.manager_ctx = exported;
  exported->managed.deleter = [](DLManagedTensor* self) {
    delete static_cast<Exported*>(self->manager_ctx);
  };
  // A consumer renames the capsule and takes over the deleter; an unconsumed capsule frees the
  // tensor itself.
  PyObject* capsule = PyCapsule_New(&exported->managed, kCapsuleName, [](PyObject* object) {
    if (!PyCapsule_IsValid(object, kCapsuleName)) return;  // consumed ("used_dltensor")
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(object, kCapsuleName));
    if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
  });
  if (capsule == nullptr) {
    exported->managed.deleter(&exported->managed);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

py::tuple DeviceArray::DlpackDevice() const {
  if (buffer_.device() == kernels::Device::kCuda) {
    return py::make_tuple(static_cast<int>(kDLCUDA), kernels::CudaDeviceOf(buffer_));
  }
  return py::make_tuple(static_cast<int>(kDLCPU), 0);
}

void BindDeviceArray(py::module_& m) {
  py::class_<DeviceArray>(m, "DeviceArray",
                          "An engine buffer on the CPU or a CUDA device; torch.from_dlpack(a) "
                          "views it as a tensor without copying.")
      .def("__dlpack__", &DeviceArray::Dlpack, py::arg("stream") = py::none())
      .def("__dlpack_device__", &DeviceArray::DlpackDevice)
      .def_property_readonly("shape",
                             [](const DeviceArray& a) { return py::tuple(py::cast(a.shape())); })
      .def_property_readonly("dtype", [](const DeviceArray& a) { return DTypeName(a.dtype()); });
}

}  // namespace compiler_gym::python
