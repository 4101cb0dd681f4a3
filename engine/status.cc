// Status's printing and ErrnoStatus's mapping of errno values to StatusCodes, out of line so
// that the header stays free of <cstring> and <cerrno>.
#include "engine/status.h"

#include <cerrno>
#include <cstring>

namespace compiler_gym {

Status ErrnoStatus(int error, std::string_view what) {
  std::string message = std::string(what) + ": " + std::strerror(error);
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return NotFound(std::move(message));
    case ENOMEM:
    case EMFILE:
    case ENFILE:
    case EAGAIN:
    case ENOSPC:
      return ResourceExhausted(std::move(message));
    default:
      return Internal(std::move(message));
  }
}

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
#define COMPILER_GYM_STATUS_CASE(c, name) \
  case StatusCode::c:                     \
    return name;
    COMPILER_GYM_STATUS_CODES(COMPILER_GYM_STATUS_CASE)
#undef COMPILER_GYM_STATUS_CASE
  }
  return "UNKNOWN";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(StatusCodeName(code_)) + ": " + message_;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  return Status(code_, std::string(context) + ": " + message_);
}

}  // namespace compiler_gym
