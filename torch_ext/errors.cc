// The StatusCode-to-exception table and RaiseStatus, which sets a Python error from a Status
// (compiler_gym.errors types, else builtins) with a message decoded leniently as UTF-8.
#include "torch_ext/errors.h"

namespace compiler_gym::python {

namespace py = pybind11;

const char* ExceptionNameFor(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument:
      return "ValueError";
    case StatusCode::kOutOfRange:
      return "ValueError";
    case StatusCode::kNotFound:
      return "FileNotFoundError";
    case StatusCode::kDeadlineExceeded:
      return "ServiceTimeout";  // a TimeoutError too
    case StatusCode::kBenchmarkInit:
      return "BenchmarkInitError";
    case StatusCode::kUnimplemented:
      return "NotImplementedError";
    case StatusCode::kNoEpisode:
      return "SessionNotFound";
    case StatusCode::kFailedPrecondition:
      return "RuntimeError";
    case StatusCode::kResourceExhausted:
      return "ServiceError";
    case StatusCode::kAborted:
      return "ServiceError";
    case StatusCode::kCrash:
      return "ServiceError";
    case StatusCode::kInternal:
      return "ServiceError";
    case StatusCode::kUnavailable:
      return "EnvironmentNotSupported";
    case StatusCode::kOk:
      return "";
  }
  return "ServiceError";
}

py::str LenientStr(const std::string& text) {
  PyObject* decoded =
      PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
  if (decoded == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

void RaiseStatus(const Status& status) {
  py::gil_scoped_acquire gil;
  // Our own exception types live in compiler_gym.errors (pure Python, so users can catch them
  // without importing the extension); the rest are builtins.
  const char* name = ExceptionNameFor(status.code());
  py::module_ errors = py::module_::import("compiler_gym.errors");
  py::object type =
      py::hasattr(errors, name) ? errors.attr(name) : py::module_::import("builtins").attr(name);
  PyErr_SetObject(type.ptr(), LenientStr(status.message()).ptr());
  throw py::error_already_set();
}

}  // namespace compiler_gym::python
