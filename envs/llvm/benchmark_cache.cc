#include "envs/llvm/benchmark_cache.h"

#include <map>

#include "envs/llvm/codegen.h"
#include "envs/llvm/module_util.h"
#include "envs/llvm/passes.h"
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
};

std::mutex cache_mu;
std::map<std::string, std::shared_ptr<Entry>>& Cache() {
  static auto* cache = new std::map<std::string, std::shared_ptr<Entry>>();
  return *cache;
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
          return LinkedTextSize(object, benchmark_);
        }
      }
      return Internal("unknown cost");
    }();
  }
  return *slot;
}

StatusOr<std::shared_ptr<CachedBenchmark>> GetCachedBenchmark(const Benchmark& benchmark) {
  const std::string key = CacheKey(benchmark);
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard<std::mutex> lock(cache_mu);
    auto& slot = Cache()[key];
    if (!slot) slot = std::make_shared<Entry>();
    entry = slot;
  }
  std::lock_guard<std::mutex> lock(entry->mu);
  if (entry->value) return entry->value;
  ASSIGN_OR_RETURN(std::string bitcode, LoadBenchmarkBitcode(benchmark));
  entry->value = std::make_shared<CachedBenchmark>(benchmark, std::move(bitcode));
  return entry->value;
}

void ClearBenchmarkCache() {
  std::lock_guard<std::mutex> lock(cache_mu);
  Cache().clear();
}

}  // namespace compiler_gym::llvm_env
