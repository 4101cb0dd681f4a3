// The one table mapping engine StatusCodes to Python exceptions: Status inside the engine,
// exceptions only at the Python edge.
//
//   ThrowIfError(WithoutGil([&] { return env.Reset(benchmark); }));  // raises on an error
//   std::string out = ValueOrThrow(WithoutGil([&] { return env.Call(method, argument); }));
#pragma once

#include <pybind11/pybind11.h>

#include <mutex>

#include "engine/status.h"

namespace compiler_gym::python {

// Raises the Python exception for a non-OK status (throws pybind11::error_already_set).
[[noreturn]] void RaiseStatus(const Status& status);

inline void ThrowIfError(const Status& status) {
  if (!status.ok()) RaiseStatus(status);
}

template <typename T>
T ValueOrThrow(StatusOr<T> s) {
  if (!s.ok()) RaiseStatus(s.status());
  return std::move(s).value();
}

// Runs a blocking engine call with the GIL released, so other Python threads go on.
template <typename F>
auto WithoutGil(F&& fn) {
  pybind11::gil_scoped_release release;
  return fn();
}

// WithoutGil, holding `mu` (taken with the GIL released, so a thread waiting for it holds up no
// other): an env is not safe to use from two threads at once, and two Python threads calling
// one env must not crash the process, so its calls take turns.
template <typename F>
auto WithoutGilLocked(std::mutex& mu, F&& fn) {
  pybind11::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(mu);
  return fn();
}

// Text from the engine as a Python str. Messages quote the input they failed on (a parser's
// line of a binary file, a compiler's output), which need not be UTF-8: invalid bytes become
// U+FFFD instead of raising UnicodeDecodeError in place of the real error.
pybind11::str LenientStr(const std::string& text);

// The Python exception class name (in compiler_gym.errors or builtins) for a code.
const char* ExceptionNameFor(StatusCode code);

}  // namespace compiler_gym::python
