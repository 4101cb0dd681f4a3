// Tests of CompareRuns, validate()'s comparison of two runs, on hand-made ProcessResults.
#include "envs/llvm/runtime.h"

#include <gtest/gtest.h>

namespace compiler_gym::llvm_env {
namespace {

ProcessResult Ended(int exit_code, std::string out, std::string err = "") {
  ProcessResult r;
  r.exit_code = exit_code;
  r.stdout_text = std::move(out);
  r.stderr_text = std::move(err);
  return r;
}

TEST(CompareRuns, SameBehaviourHasNoProblems) {
  EXPECT_TRUE(CompareRuns(Ended(0, "a\nb\n"), Ended(0, "a\nb\n"), {}).empty());
  EXPECT_TRUE(CompareRuns(Ended(3, "x"), Ended(3, "x"), {}).empty());  // failing alike is alike
}

TEST(CompareRuns, NamesTheFirstDifferingLine) {
  auto problems =
      CompareRuns(Ended(0, "same\nold value\nend\n"), Ended(0, "same\nnew value\nend\n"), {});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0],
            "standard output differs from the unoptimized program's at line 2: expected \"old "
            "value\", got \"new value\"");
}

TEST(CompareRuns, ExitCodeAndSanitizerMessage) {
  auto problems = CompareRuns(
      Ended(0, "ok\n"),
      Ended(1, "ok\n", "=================\n==42==ERROR: AddressSanitizer: heap-buffer-overflow\n"),
      {});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0],
            "the program ended with exit code 1 where the unoptimized one ended with exit code 0: "
            "==42==ERROR: AddressSanitizer: heap-buffer-overflow");
}

TEST(CompareRuns, SignalAndTimeOut) {
  ProcessResult crashed = Ended(-1, "");
  crashed.signal = 11;
  auto problems = CompareRuns(Ended(0, ""), crashed, {});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("killed by signal 11"), std::string::npos);
  ProcessResult slow = Ended(-1, "");
  slow.timed_out = true;
  problems = CompareRuns(Ended(0, ""), slow, {.timeout_seconds = 2});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("timed out after 2 s"), std::string::npos);
}

}  // namespace
}  // namespace compiler_gym::llvm_env
