// Tests of Status, StatusOr and the ASSIGN_OR_RETURN / RETURN_IF_ERROR macros.
#include "engine/status.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace compiler_gym {
namespace {

StatusOr<int> ParsePositive(int v) {
  if (v <= 0) return InvalidArgument("not positive: " + std::to_string(v));
  return v;
}

Status Twice(int v, int* out) {
  ASSIGN_OR_RETURN(int x, ParsePositive(v));
  RETURN_IF_ERROR(x > 100 ? OutOfRange("too big") : Status::Ok());
  *out = 2 * x;
  return Status::Ok();
}

TEST(Status, OkAndErrors) {
  EXPECT_TRUE(Status::Ok().ok());
  const Status s = NotFound("x");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.ToString(), "NOT_FOUND: x");
  EXPECT_EQ(s.WithContext("file.bc").message(), "file.bc: x");
  EXPECT_EQ(StatusCodeName(StatusCode::kBenchmarkInit), "BENCHMARK_INIT");
}

TEST(Status, MacrosPropagate) {
  int out = 0;
  EXPECT_TRUE(Twice(4, &out).ok());
  EXPECT_EQ(out, 8);
  EXPECT_EQ(Twice(-1, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Twice(101, &out).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(out, 8);
}

TEST(Status, ErrnoSaysWhatKindOfFailure) {
  // Out of memory is not a missing file (it read "FileNotFoundError: Cannot allocate memory").
  const Status memory = ErrnoStatus(ENOMEM, "cannot read a.bc");
  EXPECT_EQ(memory.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(memory.message(), "cannot read a.bc: Cannot allocate memory");
  EXPECT_EQ(ErrnoStatus(ENOENT, "x").code(), StatusCode::kNotFound);
  EXPECT_EQ(ErrnoStatus(EMFILE, "x").code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(ErrnoStatus(EACCES, "x").code(), StatusCode::kInternal);
}

TEST(StatusDeathTest, StatusOrFromOkAborts) {
  EXPECT_DEATH(
      {
        StatusOr<int> s{Status::Ok()};
        (void)s;
      },
      "OK Status");
}

}  // namespace
}  // namespace compiler_gym
