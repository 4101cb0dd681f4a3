// Tests of CompareRuns, validate()'s comparison of two runs, on hand-made ProcessResults.
#include "envs/llvm/runtime.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <tuple>

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

// A sysfs tree of two CPUs, each with its own L1 caches and L2, sharing one L3 (this CI
// machine's layout); cpu1 lists no sharers for its L2, so it counts as its own.
TEST(HostCaches, CountsCachesByTheirSharersAndTakesCpu0sSizes) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) / "host_caches_test";
  fs::remove_all(root);
  auto cache = [&](int cpu, int index, const std::string& level, const std::string& type,
                   const std::string& size, const std::string& shared) {
    const fs::path dir =
        root / ("cpu" + std::to_string(cpu)) / "cache" / ("index" + std::to_string(index));
    fs::create_directories(dir);
    std::ofstream(dir / "level") << level << "\n";
    std::ofstream(dir / "type") << type << "\n";
    std::ofstream(dir / "size") << size << "\n";
    if (!shared.empty()) std::ofstream(dir / "shared_cpu_list") << shared << "\n";
  };
  for (int cpu : {0, 1}) {
    const std::string own = std::to_string(cpu);
    cache(cpu, 0, "1", "Data", "48K", own);
    cache(cpu, 1, "1", "Instruction", "32K", own);
    cache(cpu, 2, "2", "Unified", cpu == 0 ? "1024K" : "2048K", cpu == 0 ? own : "");
    cache(cpu, 3, "3", "Unified", "32M", "0-1");
  }
  fs::create_directories(root / "cpufreq");  // not a CPU
  std::vector<HostCache> caches = HostCaches(root.string());
  ASSERT_EQ(caches.size(), 5u);
  std::vector<std::tuple<std::string, int64_t, int>> got;
  for (const HostCache& c : caches) got.emplace_back(c.name, c.size, c.count);
  EXPECT_EQ(got, (std::vector<std::tuple<std::string, int64_t, int>>{{"l1i_cache", 32 << 10, 2},
                                                                     {"l1d_cache", 48 << 10, 2},
                                                                     {"l2_cache", 1024 << 10, 2},
                                                                     {"l3_cache", 32 << 20, 1},
                                                                     {"l4_cache", -1, 0}}));
  // No sysfs at all: every level absent.
  for (const HostCache& c : HostCaches((root / "missing").string())) {
    EXPECT_EQ(c.size, -1);
    EXPECT_EQ(c.count, 0);
  }
  fs::remove_all(root);
}

}  // namespace
}  // namespace compiler_gym::llvm_env
