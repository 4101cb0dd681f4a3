// Tests of RunSandboxed with /bin/sh scripts as the programs: output, exit codes and signals,
// time-outs, memory limits, isolation, working directories and concurrent runs.
#include "engine/sandbox.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

namespace compiler_gym {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

ProcessResult Sh(const std::string& script, SandboxLimits limits = {}) {
  StatusOr<ProcessResult> r = RunSandboxed({"/bin/sh", "-c", script}, limits);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : ProcessResult{};
}

TEST(SandboxTest, CapturesOutputAndExitCode) {
  ProcessResult r = Sh("echo out; echo err >&2; exit 3");
  EXPECT_EQ(r.stdout_text, "out\n");
  EXPECT_EQ(r.stderr_text, "err\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.Describe({}), "exit code 3");
  EXPECT_GT(r.wall_seconds, 0);
}

TEST(SandboxTest, ReportsTheSignal) {
  ProcessResult r = Sh("kill -SEGV $$");
  EXPECT_EQ(r.signal, 11);
  EXPECT_NE(r.Describe({}).find("signal 11"), std::string::npos);
}

TEST(SandboxTest, ExtraEnvironmentOverrides) {
  ::setenv("SANDBOX_TEST_A", "parent", 1);
  ::setenv("SANDBOX_TEST_B", "parent", 1);
  auto r = RunSandboxed({"/bin/sh", "-c", "echo $SANDBOX_TEST_A $SANDBOX_TEST_B $SANDBOX_TEST_C"},
                        {}, "", {"SANDBOX_TEST_B=child", "SANDBOX_TEST_C=new"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stdout_text, "parent child new\n");
}

TEST(SandboxTest, StdinIsEmpty) {
  // cat would wait forever on an inherited terminal or pipe.
  ProcessResult r = Sh("cat; echo done", {.timeout_seconds = 5});
  EXPECT_EQ(r.stdout_text, "done\n");
}

TEST(SandboxTest, TimeOutKillsTheWholeGroup) {
  // The background sleep writes a marker if it survives the kill.
  auto marker = MakeTempDir("sandbox-test");
  ASSERT_TRUE(marker.ok());
  const std::string file = *marker + "/survived";
  ProcessResult r = Sh("(sleep 1; touch " + file + ") & sleep 30", {.timeout_seconds = 0.3});
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.wall_seconds, 5);
  EXPECT_EQ(r.Describe({.timeout_seconds = 0.3}), "timed out after 0.3 s");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_FALSE(Exists(file));
  RemoveTree(*marker);
}

TEST(SandboxTest, ProgramThatExitsLeavesNoChildRunning) {
  // A program that forks a background child and exits at once: the child is killed with the
  // group when the run ends, not left running.
  auto marker = MakeTempDir("sandbox-test");
  ASSERT_TRUE(marker.ok());
  const std::string file = *marker + "/survived";
  ProcessResult r = Sh("(sleep 1; touch " + file + ") & echo started", {.timeout_seconds = 10});
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stdout_text, "started\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_FALSE(Exists(file));
  RemoveTree(*marker);
}

// Whether a process of this pid is alive (or a zombie not yet reaped).
bool Alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

TEST(SandboxTest, ADescendantInASessionOfItsOwnDoesNotOutliveTheRun) {
  // setsid() leaves the program's process group, which is all that killing the group reaches:
  // the reaper, whose orphans they become, kills it before the run returns.
  ProcessResult r = Sh("setsid sleep 30 & echo $!", {.timeout_seconds = 10});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const pid_t escaped = std::stoi(r.stdout_text);
  EXPECT_FALSE(Alive(escaped)) << "pid " << escaped << " outlived the run";
  if (Alive(escaped)) ::kill(escaped, SIGKILL);
}

TEST(SandboxTest, ADescendantInASessionOfItsOwnDoesNotOutliveATimeOut) {
  // The same while the program itself still runs: the time-out reaches both.
  ProcessResult r =
      Sh("setsid sh -c 'sleep 30 & wait' & echo $!; sleep 30", {.timeout_seconds = 0.5});
  EXPECT_TRUE(r.timed_out);
  const pid_t escaped = std::stoi(r.stdout_text);
  EXPECT_FALSE(Alive(escaped)) << "pid " << escaped << " outlived the run";
  if (Alive(escaped)) ::kill(escaped, SIGKILL);
}

TEST(SandboxTest, ADoubleForkedDaemonDoesNotOutliveTheRun) {
  // The classic daemon: fork, setsid, fork again, the middle exits; the grandchild writes its
  // pid to a file in the working directory and lives on.
  auto dir = MakeTempDir("sandbox-test");
  ASSERT_TRUE(dir.ok());
  auto r = RunSandboxed(
      {"/bin/sh", "-c", "(setsid sh -c '(sleep 30 & echo $! > daemon.pid) &') ; sleep 0.2"},
      {.timeout_seconds = 10}, *dir);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->exit_code, 0) << r->stderr_text;
  auto pid_text = ReadFile(*dir + "/daemon.pid");
  ASSERT_TRUE(pid_text.ok());
  const pid_t daemon = std::stoi(*pid_text);
  EXPECT_FALSE(Alive(daemon)) << "pid " << daemon << " outlived the run";
  if (Alive(daemon)) ::kill(daemon, SIGKILL);
  RemoveTree(*dir);
}

TEST(SandboxTest, IsolatedProgramWritesOnlyItsWorkdirAndHasNoNetwork) {
  if (IsolationStatus() != "network, file system") {
    GTEST_SKIP() << "isolation unavailable on this machine: " << IsolationStatus();
  }
  auto outside = MakeTempDir("sandbox-test");
  ASSERT_TRUE(outside.ok());
  const std::string file = *outside + "/escaped";
  auto r = RunSandboxed({"/bin/sh", "-c",
                         "echo inside > here && cat here && (echo x > " + file +
                             ") 2>/dev/null; echo outside=$?; readlink /proc/self/ns/net"},
                        {.timeout_seconds = 10, .isolated = true});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->exit_code, 0) << r->stderr_text;
  EXPECT_NE(r->stdout_text.find("inside\noutside=2\n"), std::string::npos) << r->stdout_text;
  EXPECT_FALSE(Exists(file));
  // Its own network namespace: not ours.
  char own[128] = {0};
  ASSERT_GT(::readlink("/proc/self/ns/net", own, sizeof(own) - 1), 0);
  EXPECT_EQ(r->stdout_text.find(own), std::string::npos) << r->stdout_text;
  // Without isolation the same write succeeds: the test can tell.
  auto open = RunSandboxed({"/bin/sh", "-c", "echo x > " + file}, {.timeout_seconds = 10});
  ASSERT_TRUE(open.ok());
  EXPECT_TRUE(Exists(file));
  RemoveTree(*outside);
}

TEST(SandboxTest, MemoryLimitStopsALargeAllocation) {
  // The shell holds a 100 MB string: fine without a limit, impossible under 64 MB.
  const std::string script = "x=$(head -c 100000000 /dev/zero | tr '\\0' a); echo ${#x}";
  EXPECT_EQ(Sh(script).stdout_text, "100000000\n");
  ProcessResult limited = Sh(script, {.memory_bytes = 64 << 20});
  EXPECT_FALSE(limited.ok());
  EXPECT_EQ(limited.stdout_text, "");
}

TEST(SandboxTest, EveryChildHasAMemoryLimitUnlessItsCallerOptsOut) {
  // `ulimit -v` is the soft RLIMIT_AS in KiB. A compiler run with the default limits gets the
  // default bound; 0 gives the hard limit (what AddressSanitizer builds need).
  EXPECT_EQ(Sh("ulimit -v").stdout_text, std::to_string(kDefaultChildMemoryBytes >> 10) + "\n");
  rlimit inherited{};
  ASSERT_EQ(::getrlimit(RLIMIT_AS, &inherited), 0);
  const std::string hard = inherited.rlim_max == RLIM_INFINITY
                               ? std::string("unlimited")
                               : std::to_string(inherited.rlim_max >> 10);
  EXPECT_EQ(Sh("ulimit -v", {.memory_bytes = 0}).stdout_text, hard + "\n");
}

TEST(SandboxTest, RunsInAFreshDirectoryThatIsRemoved) {
  ProcessResult r = Sh("pwd; echo data > file; ls");
  const std::string dir = r.stdout_text.substr(0, r.stdout_text.find('\n'));
  EXPECT_NE(dir.find("compiler_gym-run"), std::string::npos);
  EXPECT_NE(r.stdout_text.find("file"), std::string::npos);
  EXPECT_FALSE(Exists(dir));
}

TEST(SandboxTest, KeepsAGivenWorkdir) {
  auto dir = MakeTempDir("sandbox-test");
  ASSERT_TRUE(dir.ok());
  auto r = RunSandboxed({"/bin/sh", "-c", "echo x > kept"}, {}, *dir);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(Exists(*dir + "/kept"));
  RemoveTree(*dir);
  EXPECT_FALSE(Exists(*dir));
}

TEST(SandboxTest, TruncatesLongOutput) {
  ProcessResult r = Sh("head -c 100000 /dev/zero", {.max_output_bytes = 1000});
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.stdout_text.size(), 1000u);
  EXPECT_TRUE(r.output_truncated);
}

TEST(SandboxTest, MissingProgramIsNotFound) {
  auto r = RunSandboxed({"/nonexistent/program"}, {});
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(RunSandboxed({}, {}).status().code(), StatusCode::kInvalidArgument);
}

TEST(SandboxTest, NotExecutableIsAnError) {
  auto dir = MakeTempDir("sandbox-test");
  ASSERT_TRUE(dir.ok());
  auto r = RunSandboxed({*dir}, {});  // a directory cannot be executed
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot run"), std::string::npos);
  RemoveTree(*dir);
}

TEST(SandboxTest, ConcurrentRunsKeepTheirOwnOutput) {
  constexpr int kThreads = 8;
  std::vector<std::string> outputs(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([i, &outputs] {
      auto r = RunSandboxed({"/bin/sh", "-c", "sleep 0.05; echo " + std::to_string(i)}, {});
      if (r.ok()) outputs[i] = r->stdout_text;
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) EXPECT_EQ(outputs[i], std::to_string(i) + "\n");
}

}  // namespace
}  // namespace compiler_gym
