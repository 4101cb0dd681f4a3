// Building a benchmark's program from the current module and running it: the Buildtime and
// Runtime observations, TextSizeBytes on the linked binary, and the differential test behind
// validate(). Runs go through the engine's sandbox (time and memory limits, fresh workdir).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/env.h"
#include "engine/sandbox.h"
#include "engine/status.h"

namespace compiler_gym::llvm_env {

// How a program is run. Parameters of the env (see LlvmEnv::SetParameter).
struct RunConfig {
  int runs = 1;         // measured runs per Runtime observation
  int warmup_runs = 0;  // unmeasured runs before them
  double timeout_seconds = 60;
  int64_t memory_bytes = int64_t{8} << 30;  // address space of each run
};

// A linked executable in its own temporary directory, removed with the object.
class Executable {
 public:
  explicit Executable(std::string dir);  // takes ownership of dir
  ~Executable();
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;

  const std::string& path() const { return path_; }
  // Whether this process made it. A worker process that forks itself (engine/worker.h) copies
  // its envs' executables; the copy neither uses nor removes the original's files.
  bool owned_here() const;
  // Code generation (when the caller timed it) plus linking.
  double build_seconds() const { return build_seconds_; }
  void set_build_seconds(double seconds) { build_seconds_ = seconds; }

 private:
  std::string dir_, path_;
  int owner_;  // pid
  double build_seconds_ = 0;
};

// Links an object file with the benchmark's link flags (clang-19 drives the system linker).
// `codegen_seconds` is added to the link time to give the build time.
StatusOr<std::unique_ptr<Executable>> LinkExecutable(const std::string& object,
                                                     const Benchmark& benchmark,
                                                     double codegen_seconds = 0);

// Size of the .text sections of the linked executable.
StatusOr<int64_t> ExecutableTextSize(const Executable& executable);

// Compiles `bitcode` with clang-19 and extra flags (e.g. -fsanitize=address) into an
// executable, for builds that need more than code generation.
StatusOr<std::unique_ptr<Executable>> CompileExecutable(const std::string& bitcode,
                                                        const Benchmark& benchmark,
                                                        const std::vector<std::string>& flags);

// What the program did: the output and exit code of the last run, and each measured run's
// wall-clock seconds.
struct ProgramRuns {
  ProcessResult last;
  std::vector<double> runtimes;
};

// Runs config.warmup_runs + config.runs times with the benchmark's run_args. Any run that
// fails (non-zero exit, signal, time-out) is an error naming how it failed: kDeadlineExceeded
// for a time-out, kAborted otherwise.
StatusOr<ProgramRuns> RunExecutable(const Executable& executable, const Benchmark& benchmark,
                                    const RunConfig& config,
                                    const std::vector<std::string>& extra_env = {});

// A single run that may fail: how it ended is in the result.
StatusOr<ProcessResult> RunOnce(const Executable& executable, const Benchmark& benchmark,
                                const RunConfig& config,
                                const std::vector<std::string>& extra_env = {});

// The differences between a program's run and the reference (unoptimized) run, as readable
// sentences; empty when they agree on exit code and standard output.
std::vector<std::string> CompareRuns(const ProcessResult& reference, const ProcessResult& run,
                                     const SandboxLimits& limits);

// One level of the host's caches as CompilerGym's CpuInfo reports it: the size of one cache
// in bytes (-1 when the host has none) and how many there are.
struct HostCache {
  std::string name;  // l1i_cache, l1d_cache, l2_cache, l3_cache, l4_cache
  int64_t size = -1;
  int count = 0;
};

// The host's caches, in that order, from sysfs under `cpu_root` (a cpuN/cache/indexK folder
// per CPU and cache: level, type, size, shared_cpu_list): a cache shared by several CPUs is
// one cache, told apart by the CPUs that share it.
std::vector<HostCache> HostCaches(const std::string& cpu_root = "/sys/devices/system/cpu");

}  // namespace compiler_gym::llvm_env
