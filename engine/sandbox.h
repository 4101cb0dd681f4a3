// Running untrusted programs (benchmarks under test, compilers): a child process in a fresh
// working directory with a wall-clock limit, an address-space limit and captured output.
//
//   SandboxLimits limits{.timeout_seconds = 10, .memory_bytes = 1 << 30};
//   ASSIGN_OR_RETURN(ProcessResult r, RunSandboxed({"/tmp/a.out", "2"}, limits));
//   if (!r.ok()) return Aborted("a.out " + r.Describe(limits));  // a signal, a time-out, ...
//
// Safe to call from many threads at once: no signal handlers, no process-wide state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/status.h"

namespace compiler_gym {

// Every child gets an address-space limit unless its caller opts out: a compiler (GCC, clang)
// fed a pathological program must not take the machine's memory.
inline constexpr int64_t kDefaultChildMemoryBytes = int64_t{8} << 30;

struct SandboxLimits {
  double timeout_seconds = 60;  // wall clock; the process group is killed after it
  // RLIMIT_AS of the child (and of what it starts); 0 = the hard limit (AddressSanitizer
  // builds, which reserve terabytes of address space).
  int64_t memory_bytes = kDefaultChildMemoryBytes;
  size_t max_output_bytes = 1 << 20;  // per stream; the rest is read and dropped
  // For programs rather than tools: no network (a network namespace of its own, and Landlock's
  // TCP rules) and no changes to the file system outside the working directory (Landlock).
  // Where the kernel refuses either, the program runs with what it allows; IsolationStatus()
  // says which.
  bool isolated = false;
};

// What isolation this machine gives (probed once): "network, filesystem", or what is missing.
std::string IsolationStatus();

struct ProcessResult {
  int exit_code = -1;      // valid when signal == 0 and !timed_out
  int signal = 0;          // the signal that ended the process, or 0
  bool timed_out = false;  // killed by the wall-clock limit
  bool output_truncated = false;
  std::string stdout_text;
  std::string stderr_text;
  double wall_seconds = 0;  // from the program's start (its exec) until it is reaped
  double cpu_seconds = 0;   // user + system time of the child

  // Exit code 0, no signal, in time.
  bool ok() const { return !timed_out && signal == 0 && exit_code == 0; }
  // "exit code 3", "killed by signal 11 (Segmentation fault)", "timed out after 2 s".
  std::string Describe(const SandboxLimits& limits) const;
};

// Runs argv[0] (a path; no PATH search) with the given arguments and stdin from /dev/null, in
// `workdir` when given, else in a new temporary directory that is removed afterwards with
// everything the program wrote there. The program runs under compiler_gym-reaper
// (engine/reaper_main.cc), a child subreaper: when the program ends or times out, everything it
// started is killed before this returns, including descendants that left its process group or
// session (setsid, a daemon's double fork). The reaper lies beside the module (kFailedPrecondition
// when it is missing). An error Status means the program could not be started
// (kNotFound for a missing executable); how the program itself ended is in the result.
// `extra_env` entries ("NAME=value") are added to, and override, the caller's environment.
StatusOr<ProcessResult> RunSandboxed(const std::vector<std::string>& argv,
                                     const SandboxLimits& limits, const std::string& workdir = "",
                                     const std::vector<std::string>& extra_env = {});

// A new empty directory under the system's temporary directory, named after `prefix` and the
// calling process (and its PID namespace). The first call in a process also removes the
// directories of compiler_gym processes of its namespace that died before removing theirs.
StatusOr<std::string> MakeTempDir(const std::string& prefix);

// Removes a file or directory tree; errors are ignored (best effort cleanup).
void RemoveTree(const std::string& path);

// A child's input and output files: the whole file as bytes (kNotFound when it is missing, as
// when a compiler wrote none), and `data` written over `path` (kResourceExhausted on failure:
// a full disk).
StatusOr<std::string> ReadFile(const std::string& path);
Status WriteFile(const std::string& path, const std::string& data);

}  // namespace compiler_gym
