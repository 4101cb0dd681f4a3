// Python bindings of the vector engine (compiler_gym._C.VecEnv).
#pragma once

#include <pybind11/pybind11.h>

namespace compiler_gym::python {

void BindVecEnv(pybind11::module_& m);

}  // namespace compiler_gym::python
