// The benchmark cache: entries keyed by URI and content, each behind its own lock so that one
// slow load blocks only its own program, evicted least recently used first past a byte bound.
#include "envs/llvm/benchmark_cache.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <list>
#include <map>
#include <string_view>
#include <utility>

#include "envs/llvm/codegen.h"
#include "envs/llvm/module_util.h"
#include "envs/llvm/passes.h"
#include "envs/llvm/runtime.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA1.h"

namespace compiler_gym::llvm_env {

namespace {

const char* PipelineFor(OptLevel level) {
  switch (level) {
    case OptLevel::kO0:
      return "default<O0>";
    case OptLevel::kO3:
      return "default<O3>";
    case OptLevel::kOz:
      return "default<Oz>";
  }
  return "";
}

// The cache key is the URI plus what the program is made of, so two different programs that a
// user names alike do not collide.
std::string CacheKey(const Benchmark& b) {
  std::string key = b.uri;
  for (const std::string& f : b.files) key += "\n" + f;
  for (const std::string& a : b.compile_args) key += "\n-" + a;
  for (const std::string& a : b.link_args) key += "\nl" + a;
  for (const std::string& a : b.run_args) key += "\nr" + a;
  if (!b.data.empty()) {
    llvm::SHA1 sha1;
    sha1.update(llvm::StringRef(b.data));
    key += "\n#" + llvm::toHex(sha1.final());
  }
  return key;
}

struct Entry {
  std::mutex mu;  // held while loading
  std::shared_ptr<CachedBenchmark> value;
  std::list<std::string>::iterator recency;  // its place in Cache::recency
};

// Benchmarks by key, and their keys from the most to the least recently used. Bounded in bytes
// (programs, baselines and objects together), so an endless generator dataset does not grow
// memory: past the limit the least recently used benchmarks are dropped (envs still using one
// keep it alive), and load again if asked for.
struct Cache {
  std::map<std::string, std::shared_ptr<Entry>> entries;
  std::list<std::string> recency;
  int64_t limit_bytes = [] {
    const char* mb = std::getenv("COMPILER_GYM_BENCHMARK_CACHE_MB");
    return (mb != nullptr && *mb ? std::atoll(mb) : 512) * (int64_t{1} << 20);
  }();

  int64_t Bytes() const {
    int64_t total = 0;
    for (const auto& [key, entry] : entries) total += entry->value ? entry->value->bytes() : 0;
    return total;
  }

  // Requires cache_mu. The most recent entry always stays: it is the one being used.
  void Evict() {
    int64_t total = Bytes();
    while (total > limit_bytes && recency.size() > 1) {
      auto victim = entries.find(recency.back());
      total -= victim->second->value ? victim->second->value->bytes() : 0;
      recency.pop_back();
      entries.erase(victim);
    }
  }
};

std::mutex cache_mu;
Cache& TheCache() {
  static auto* cache = new Cache();
  return *cache;
}

std::string_view Trim(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
}

}  // namespace

StatusOr<std::string> CachedBenchmark::OptimizedBitcode(OptLevel level) {
  LevelState& state = levels_[static_cast<int>(level)];
  if (!state.bitcode) {
    state.bitcode = [&]() -> StatusOr<std::string> {
      auto context = NewContext();
      ASSIGN_OR_RETURN(auto module, ParseModule(bitcode_, benchmark_.uri, *context));
      ASSIGN_OR_RETURN(auto tm, CreateTargetMachine(*module));
      RETURN_IF_ERROR(RunPipeline(*module, tm.get(), PipelineFor(level)));
      return ModuleToBitcode(*module);
    }();
    if (state.bitcode->ok()) bytes_ += (*state.bitcode)->size();
  }
  return *state.bitcode;
}

StatusOr<std::string> CachedBenchmark::OptimizedObject(OptLevel level) {
  LevelState& state = levels_[static_cast<int>(level)];
  if (!state.object) {
    state.object = [&]() -> StatusOr<std::string> {
      ASSIGN_OR_RETURN(std::string bitcode, OptimizedBitcode(level));
      auto context = NewContext();
      ASSIGN_OR_RETURN(auto module, ParseModule(bitcode, benchmark_.uri, *context));
      return EmitObject(*module);
    }();
    if (state.object->ok()) bytes_ += (*state.object)->size();
  }
  return *state.object;
}

StatusOr<int64_t> CachedBenchmark::Baseline(OptLevel level, CostKind cost) {
  std::lock_guard<std::mutex> lock(mu_);
  LevelState& state = levels_[static_cast<int>(level)];
  auto& slot = state.costs[static_cast<int>(cost)];
  if (!slot) {
    slot = [&]() -> StatusOr<int64_t> {
      switch (cost) {
        case CostKind::kIrInstructionCount: {
          ASSIGN_OR_RETURN(std::string bitcode, OptimizedBitcode(level));
          auto context = NewContext();
          ASSIGN_OR_RETURN(auto module, ParseModule(bitcode, benchmark_.uri, *context));
          return IrInstructionCount(*module);
        }
        case CostKind::kObjectTextSize: {
          ASSIGN_OR_RETURN(std::string object, OptimizedObject(level));
          return TextSectionSize(object);
        }
        case CostKind::kTextSize: {
          ASSIGN_OR_RETURN(std::string object, OptimizedObject(level));
          if (!benchmark_.buildable) return TextSectionSize(object);
          ASSIGN_OR_RETURN(auto executable, LinkExecutable(object, benchmark_));
          return ExecutableTextSize(*executable);
        }
      }
      return Internal("unknown cost");
    }();
  }
  return *slot;
}

StatusOr<ProgramRuns> CachedBenchmark::ReferenceRun(const RunConfig& config) {
  std::lock_guard<std::mutex> reference_lock(reference_mu_);
  if (!reference_) {
    reference_ = [&]() -> StatusOr<ProgramRuns> {
      if (!benchmark_.runnable) return InvalidArgument(benchmark_.uri + " is not runnable");
      std::string object;
      {
        std::lock_guard<std::mutex> lock(mu_);
        ASSIGN_OR_RETURN(object, OptimizedObject(OptLevel::kO0));
      }
      ASSIGN_OR_RETURN(auto executable, LinkExecutable(object, benchmark_));
      ASSIGN_OR_RETURN(ProgramRuns runs, RunExecutable(*executable, benchmark_, config));
      if (!benchmark_.expected_output.empty() &&
          Trim(runs.last.stdout_text) != Trim(benchmark_.expected_output)) {
        return Aborted(benchmark_.uri +
                       ": the unoptimized program's output differs from the "
                       "benchmark's expected output");
      }
      return runs;
    }();
  }
  return *reference_;
}

namespace {

// A benchmark's known_costs, checked: "O0", "O3" or "Oz", "/", then a cost kind.
StatusOr<std::vector<KnownCost>> ParseKnownCosts(const Benchmark& benchmark) {
  static constexpr std::pair<std::string_view, OptLevel> kLevels[] = {
      {"O0", OptLevel::kO0}, {"O3", OptLevel::kO3}, {"Oz", OptLevel::kOz}};
  static constexpr std::pair<std::string_view, CostKind> kCosts[] = {
      {"IrInstructionCount", CostKind::kIrInstructionCount},
      {"ObjectTextSize", CostKind::kObjectTextSize},
      {"TextSize", CostKind::kTextSize}};
  std::vector<KnownCost> parsed;
  for (const auto& [name, value] : benchmark.known_costs) {
    const size_t slash = name.find('/');
    const std::string_view level_name = std::string_view(name).substr(0, slash);
    const std::string_view cost_name =
        slash == std::string::npos ? std::string_view() : std::string_view(name).substr(slash + 1);
    const auto* level = std::find_if(std::begin(kLevels), std::end(kLevels),
                                     [&](const auto& l) { return l.first == level_name; });
    const auto* cost = std::find_if(std::begin(kCosts), std::end(kCosts),
                                    [&](const auto& c) { return c.first == cost_name; });
    if (level == std::end(kLevels) || cost == std::end(kCosts)) {
      return InvalidArgument("unknown known cost '" + name +
                             "': expected O0, O3 or Oz, '/', then IrInstructionCount, "
                             "ObjectTextSize or TextSize");
    }
    if (value < 0) return InvalidArgument("known cost '" + name + "' is negative");
    parsed.push_back({level->second, cost->second, value});
  }
  return parsed;
}

}  // namespace

void CachedBenchmark::SeedCosts(const std::vector<KnownCost>& costs) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const KnownCost& known : costs) {
    auto& slot = levels_[static_cast<int>(known.level)].costs[static_cast<int>(known.cost)];
    if (!slot) slot = known.value;  // a cost already known (or computed) stays
  }
}

StatusOr<std::shared_ptr<CachedBenchmark>> GetCachedBenchmark(const Benchmark& benchmark) {
  std::vector<KnownCost> known;
  if (!benchmark.known_costs.empty()) {
    ASSIGN_OR_RETURN(known, ParseKnownCosts(benchmark));
  }
  const std::string key = CacheKey(benchmark);
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard<std::mutex> lock(cache_mu);
    Cache& cache = TheCache();
    auto& slot = cache.entries[key];
    if (!slot) {
      slot = std::make_shared<Entry>();
      cache.recency.push_front(key);
    } else {
      cache.recency.splice(cache.recency.begin(), cache.recency, slot->recency);
    }
    slot->recency = cache.recency.begin();
    entry = slot;
  }
  std::lock_guard<std::mutex> lock(entry->mu);
  if (entry->value) {
    if (!known.empty()) entry->value->SeedCosts(known);
    return entry->value;
  }
  ASSIGN_OR_RETURN(std::string bitcode, LoadBenchmarkBitcode(benchmark));
  entry->value = std::make_shared<CachedBenchmark>(benchmark, std::move(bitcode));
  entry->value->SeedCosts(known);
  {
    // Only a load can push the cache past its bound by much, so only a load sums the entries
    // (baselines computed since the last load count then): a hit, on every reset, stays cheap.
    std::lock_guard<std::mutex> cache_lock(cache_mu);
    TheCache().Evict();
  }
  return entry->value;
}

StatusOr<ProgramRuns> ProbeBenchmark(const Benchmark& benchmark, const RunConfig& config) {
  ASSIGN_OR_RETURN(std::string bitcode, LoadBenchmarkBitcode(benchmark));
  if (!benchmark.runnable) return ProgramRuns{};         // loading was all there was to check
  CachedBenchmark probe(benchmark, std::move(bitcode));  // not kept: probes are one-offs
  return probe.ReferenceRun(config);
}

void ClearBenchmarkCache() {
  std::lock_guard<std::mutex> lock(cache_mu);
  TheCache().entries.clear();
  TheCache().recency.clear();
}

void SetBenchmarkCacheLimit(int64_t bytes) {
  std::lock_guard<std::mutex> lock(cache_mu);
  TheCache().limit_bytes = bytes;
  TheCache().Evict();
}

BenchmarkCacheStats GetBenchmarkCacheStats() {
  std::lock_guard<std::mutex> lock(cache_mu);
  return {static_cast<int64_t>(TheCache().entries.size()), TheCache().Bytes(),
          TheCache().limit_bytes};
}

}  // namespace compiler_gym::llvm_env
