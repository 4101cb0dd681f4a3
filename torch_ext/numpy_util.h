// NumPy arrays over engine data without copying it.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <utility>
#include <vector>

namespace compiler_gym::python {

// Wraps a vector in a NumPy array that owns it (no copy of the data).
template <typename T>
pybind11::array_t<T> Own(std::vector<T> values, std::vector<pybind11::ssize_t> shape) {
  auto* heap = new std::vector<T>(std::move(values));
  pybind11::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return pybind11::array_t<T>(shape, heap->data(), owner);
}

// A read-only 1-d NumPy view of `values`, which `keeper` keeps alive; read-only because the
// data is shared (an observation cache, other views).
template <typename T, typename Keeper>
pybind11::array_t<T> SharedView(const std::vector<T>& values, std::shared_ptr<Keeper> keeper) {
  auto* heap = new std::shared_ptr<Keeper>(std::move(keeper));
  pybind11::capsule owner(heap, [](void* p) { delete static_cast<std::shared_ptr<Keeper>*>(p); });
  pybind11::array_t<T> array({static_cast<pybind11::ssize_t>(values.size())}, values.data(), owner);
  array.attr("setflags")(pybind11::arg("write") = false);
  return array;
}

}  // namespace compiler_gym::python
