// Status and StatusOr<T>: the error currency inside the C++ engine.
//
// Fallible functions return [[nodiscard]] Status or StatusOr<T>; exceptions are used only at
// the Python edge, where torch_ext/ maps each StatusCode to one exception type through a single
// table. Usage:
//
//   StatusOr<int> Parse(std::string_view s);
//   Status Check(int v);
//   Status Use() {
//     ASSIGN_OR_RETURN(int v, Parse("42"));
//     RETURN_IF_ERROR(Check(v));
//     return Status::Ok();
//   }
#pragma once

#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace compiler_gym {

// Codes follow absl/grpc names where one fits; kBenchmarkInit is ours (a broken benchmark is a
// BenchmarkInitError in Python, as in CompilerGym). Keep in sync with the table in
// torch_ext/errors.cc, which is the only place that maps codes to exceptions.
#define COMPILER_GYM_STATUS_CODES(X)            \
  X(kOk, "OK")                                  \
  X(kInvalidArgument, "INVALID_ARGUMENT")       \
  X(kNotFound, "NOT_FOUND")                     \
  X(kOutOfRange, "OUT_OF_RANGE")                \
  X(kDeadlineExceeded, "DEADLINE_EXCEEDED")     \
  X(kBenchmarkInit, "BENCHMARK_INIT")           \
  X(kFailedPrecondition, "FAILED_PRECONDITION") \
  X(kUnimplemented, "UNIMPLEMENTED")            \
  X(kResourceExhausted, "RESOURCE_EXHAUSTED")   \
  X(kAborted, "ABORTED")                        \
  X(kCrash, "CRASH")                            \
  X(kInternal, "INTERNAL")                      \
  X(kUnavailable, "UNAVAILABLE")                \
  X(kNoEpisode, "NO_EPISODE")

enum class StatusCode {
#define COMPILER_GYM_STATUS_ENUM(code, name) code,
  COMPILER_GYM_STATUS_CODES(COMPILER_GYM_STATUS_ENUM)
#undef COMPILER_GYM_STATUS_ENUM
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const;

  // Prefixes the message with context while keeping the code, e.g. the benchmark URI.
  Status WithContext(std::string_view context) const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status OutOfRange(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
inline Status DeadlineExceeded(std::string m) {
  return {StatusCode::kDeadlineExceeded, std::move(m)};
}
inline Status BenchmarkInitError(std::string m) {
  return {StatusCode::kBenchmarkInit, std::move(m)};
}
inline Status FailedPrecondition(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}
inline Status Unimplemented(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
inline Status ResourceExhausted(std::string m) {
  return {StatusCode::kResourceExhausted, std::move(m)};
}
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
// The call needs an episode in progress (SessionNotFound); other missing preconditions (a
// recv() with nothing sent) are kFailedPrecondition.
inline Status NoEpisode(std::string m) { return {StatusCode::kNoEpisode, std::move(m)}; }
// An observation or reward asked for outside an episode, in CompilerGym's words first.
inline Status NotInEpisode(const std::string& what) {
  return NoEpisode("Must call reset() before step(): " + what + " requested outside an episode");
}
// What this machine cannot provide (no CUDA driver or device): EnvironmentNotSupported.
inline Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
// An outside program (a compiler, the benchmark under test) failed or crashed.
inline Status Aborted(std::string m) { return {StatusCode::kAborted, std::move(m)}; }
// The compiler itself crashed (a signal, a fatal error) while working on an env.
inline Status Crash(std::string m) { return {StatusCode::kCrash, std::move(m)}; }

// A failed system call's errno as a status, `what` first and the system's words last: a
// missing file is kNotFound, exhausted memory, descriptors or processes kResourceExhausted,
// anything else kInternal (a file that exists but cannot be read is not "not found").
Status ErrnoStatus(int error, std::string_view what);

// Holds either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design, like absl.
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) {
      // An OK status carries no value: that is a programming error, not bad input.
      std::cerr << "StatusOr constructed from an OK Status\n";
      std::abort();
    }
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace compiler_gym

#define CG_STATUS_CONCAT_INNER_(a, b) a##b
#define CG_STATUS_CONCAT_(a, b) CG_STATUS_CONCAT_INNER_(a, b)

#define RETURN_IF_ERROR(expr)                   \
  do {                                          \
    ::compiler_gym::Status cg_status_ = (expr); \
    if (!cg_status_.ok()) return cg_status_;    \
  } while (0)

#define ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                           \
  if (!tmp.ok()) return tmp.status();          \
  lhs = std::move(tmp).value()

#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL_(CG_STATUS_CONCAT_(cg_statusor_, __LINE__), lhs, expr)

// Always-on check for cheap invariants whose failure means a bug in this project.
#define CG_CHECK(cond)                                                           \
  do {                                                                           \
    if (!(cond)) {                                                               \
      std::cerr << __FILE__ << ":" << __LINE__ << ": check failed: " #cond "\n"; \
      std::abort();                                                              \
    }                                                                            \
  } while (0)
