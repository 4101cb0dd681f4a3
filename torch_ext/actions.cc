// ActionFromPython: any Python or NumPy integer (bools and floats refused), range-checked into
// an int, with the error raised through the StatusCode table.
#include "torch_ext/actions.h"

#include <cstring>
#include <limits>
#include <string>

#include "engine/status.h"
#include "torch_ext/errors.h"

namespace compiler_gym::python {

namespace py = pybind11;

namespace {

[[noreturn]] void NotAnInteger(py::handle value) {
  RaiseStatus(InvalidArgument("an action must be an integer, got " + std::string(py::repr(value)) +
                              " (" + std::string(Py_TYPE(value.ptr())->tp_name) + ")"));
}

int InIntRange(long long value, int overflow, py::handle original) {
  if (overflow != 0 || value < std::numeric_limits<int>::min() ||
      value > std::numeric_limits<int>::max()) {
    RaiseStatus(OutOfRange("action " + std::string(py::repr(original)) + " is out of range"));
  }
  return static_cast<int>(value);
}

}  // namespace

int ActionFromPython(py::handle value) {
  PyObject* o = value.ptr();
  // bool is an int to Python: not an action index, nor is NumPy's.
  const char* type = Py_TYPE(o)->tp_name;
  if (PyBool_Check(o) || std::strcmp(type, "numpy.bool") == 0 ||
      std::strcmp(type, "numpy.bool_") == 0 || !PyIndex_Check(o)) {
    NotAnInteger(value);
  }
  PyObject* index = PyNumber_Index(o);  // int, NumPy and torch integers; a float tensor refuses
  if (index == nullptr) {
    PyErr_Clear();
    NotAnInteger(value);
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
  Py_DECREF(index);
  return InIntRange(v, overflow, value);
}

std::vector<int> ActionsFromPython(py::handle values) {
  std::vector<int> out;
  for (py::handle value : py::iter(values)) out.push_back(ActionFromPython(value));
  return out;
}

}  // namespace compiler_gym::python
