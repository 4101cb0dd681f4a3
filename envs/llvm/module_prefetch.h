// Fresh copies of benchmarks, prepared off the critical path.
//
// Every episode works on its own LLVMContext and module, parsed from the cached bitcode. While an
// episode runs, a background worker parses the next episode's copy and destroys retired ones, so
// reset() mostly swaps pointers. Contexts are independent, so this needs no locking of LLVM state.
//
//   std::future<StatusOr<ModuleCopy>> next = PrefetchModuleCopy(cached);
//   // ... the current episode runs ...
//   ASSIGN_OR_RETURN(ModuleCopy copy, next.get());
//   DestroyInBackground(std::move(old_copy));
#pragma once

#include <future>
#include <memory>

#include "engine/status.h"
#include "envs/llvm/benchmark_cache.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace compiler_gym::llvm_env {

struct ModuleCopy {
  // Declared first so that it is destroyed last: the module belongs to the context.
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;

  ModuleCopy() = default;
  ModuleCopy(ModuleCopy&&) = default;
  ModuleCopy& operator=(ModuleCopy&& other) {
    module.reset();  // before its context goes
    module = std::move(other.module);
    context = std::move(other.context);
    return *this;
  }
  ~ModuleCopy() { module.reset(); }
};

// Parses the benchmark into a new context, now, on this thread.
StatusOr<ModuleCopy> MakeModuleCopy(const CachedBenchmark& benchmark);

// Parses the benchmark into a new context on the background worker (or now, once the worker has
// been stopped).
std::future<StatusOr<ModuleCopy>> PrefetchModuleCopy(std::shared_ptr<CachedBenchmark> benchmark);

// Destroys a module and its context on the background worker (or now, once it has stopped).
void DestroyInBackground(ModuleCopy copy);

// Finishes queued work and stops the worker; later calls do their work inline. Called at
// interpreter exit by the Python module, and safe to call more than once.
void StopBackgroundWorker();

}  // namespace compiler_gym::llvm_env
