// CompileCache: what GCC produced for a (compiler, source, command line), shared by every GCC
// env of the process, so that an action that leads back to a command line already compiled
// (or a fork, or another env on the same program) costs no compile.
//
// Entries are bounded in bytes (least recently used dropped first). Failed compiles are kept
// too (GCC rejects the same flags the same way), except time-outs, which depend on the load.
//
//   CompileCache& cache = CompileCache::Get();
//   const std::string key = CacheKey({gcc_path, source, command_line});
//   // compile: a std::function<StatusOr<std::string>()> that runs GCC, returning its output
//   ASSIGN_OR_RETURN(CompileCache::Value obj, cache.GetOrCompute(key, compile));
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "engine/status.h"

namespace compiler_gym::gcc_env {

struct CompileCacheStats {
  int64_t compiles = 0;  // calls that ran the compute function
  int64_t hits = 0;      // calls answered from the cache
  int64_t entries = 0;
  int64_t bytes = 0;
  int64_t limit_bytes = 0;
};

class CompileCache {
 public:
  using Value = std::shared_ptr<const std::string>;

  static CompileCache& Get();

  // The cached result for `key`, or compute()'s, which is then cached. Two threads asking for
  // the same missing key may both compute it; the results are equal.
  StatusOr<Value> GetOrCompute(const std::string& key,
                               const std::function<StatusOr<std::string>()>& compute);

  CompileCacheStats Stats() const;
  void SetLimit(int64_t bytes);
  void Clear();

  struct Impl;
  CompileCache();
  ~CompileCache();

 private:
  std::unique_ptr<Impl> impl_;
};

// A stable key for the parts (a hex digest of their lengths and bytes).
std::string CacheKey(std::initializer_list<std::string_view> parts);

}  // namespace compiler_gym::gcc_env
