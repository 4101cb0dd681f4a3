// Actions from Python values, checked once here: integers only, never truncated.
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

namespace compiler_gym::python {

// An action index from a Python int or a NumPy or torch integer. A bool, a float (1.9 as
// well as 2.0, as make_vec refuses float arrays) and any other value raise ValueError; so
// does a value outside int's range. The action space's range is the engine's check
// (Env::CheckActions).
int ActionFromPython(pybind11::handle value);

// Each element of an iterable through ActionFromPython.
std::vector<int> ActionsFromPython(pybind11::handle values);

}  // namespace compiler_gym::python
