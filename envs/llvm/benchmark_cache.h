// A process-wide, thread-safe cache of loaded benchmarks: the normalized bitcode of each
// program (parsed and verified once) and its O0/O3/Oz baselines, each computed at most once,
// on first use. Environments clone from here on reset instead of recompiling.
//
//   ASSIGN_OR_RETURN(std::shared_ptr<CachedBenchmark> cached, GetCachedBenchmark(benchmark));
//   ASSIGN_OR_RETURN(int64_t oz, cached->Baseline(OptLevel::kOz, CostKind::kIrInstructionCount));
//   // cached->bitcode(): what each episode parses into a context of its own (module_prefetch.h)
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/env.h"
#include "engine/status.h"
#include "envs/llvm/runtime.h"

namespace compiler_gym::llvm_env {

enum class OptLevel { kO0, kO3, kOz };
enum class CostKind { kIrInstructionCount, kObjectTextSize, kTextSize };

// A cost computed elsewhere (a benchmark's known_costs, checked by GetCachedBenchmark).
struct KnownCost {
  OptLevel level;
  CostKind cost;
  int64_t value;
};

class CachedBenchmark {
 public:
  CachedBenchmark(Benchmark benchmark, std::string bitcode)
      : benchmark_(std::move(benchmark)), bitcode_(std::move(bitcode)) {}

  const Benchmark& benchmark() const { return benchmark_; }
  const std::string& bitcode() const { return bitcode_; }
  // Memory held: the program's bitcode, and the baselines' bitcode and objects computed so far.
  int64_t bytes() const { return bytes_; }

  // The cost of the program after LLVM's default<level> pipeline.
  StatusOr<int64_t> Baseline(OptLevel level, CostKind cost);

  // Takes costs computed elsewhere as baselines, where none is known yet.
  void SeedCosts(const std::vector<KnownCost>& costs);

  // The benchmark's program after default<O0>, built and run once (with the first caller's
  // config; later callers share the result): the reference of differential tests, and C0 of
  // the Runtime reward. An error when the benchmark is not runnable, when the program fails,
  // or when its output differs from the benchmark's expected_output.
  StatusOr<ProgramRuns> ReferenceRun(const RunConfig& config);

 private:
  struct LevelState {
    std::optional<StatusOr<std::string>> bitcode;  // after the pipeline
    std::optional<StatusOr<std::string>> object;
    std::optional<StatusOr<int64_t>> costs[3];
  };
  StatusOr<std::string> OptimizedBitcode(OptLevel level);  // requires mu_
  StatusOr<std::string> OptimizedObject(OptLevel level);   // requires mu_

  const Benchmark benchmark_;
  const std::string bitcode_;
  std::atomic<int64_t> bytes_{static_cast<int64_t>(bitcode_.size())};
  std::mutex mu_;
  LevelState levels_[3];
  std::mutex reference_mu_;  // held for the (slow) reference run, without blocking baselines
  std::optional<StatusOr<ProgramRuns>> reference_;
};

// Returns the cached benchmark, loading it on first use. Concurrent callers asking for the same
// benchmark wait for one load; a failed load is not cached (the file may be fixed).
StatusOr<std::shared_ptr<CachedBenchmark>> GetCachedBenchmark(const Benchmark& benchmark);

// Loads, builds and runs a benchmark the way an env would (its reference run), without caching
// anything: how dataset installers decide which programs are usable and runnable. A benchmark
// that is not runnable is only loaded (no runs in the result).
StatusOr<ProgramRuns> ProbeBenchmark(const Benchmark& benchmark, const RunConfig& config);

// Drops every cached benchmark (tests, and users who replace files under the same URI).
void ClearBenchmarkCache();

// The cache's bound in bytes (default 512 MiB, or $COMPILER_GYM_BENCHMARK_CACHE_MB); setting it
// evicts at once.
void SetBenchmarkCacheLimit(int64_t bytes);
struct BenchmarkCacheStats {
  int64_t entries = 0;
  int64_t bytes = 0;
  int64_t limit_bytes = 0;
};
BenchmarkCacheStats GetBenchmarkCacheStats();

}  // namespace compiler_gym::llvm_env
