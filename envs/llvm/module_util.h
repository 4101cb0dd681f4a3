// Helpers over llvm::Module used by the LLVM environment: loading and normalizing programs,
// serializing, hashing, counting. LLVM types appear here, so include this header only from
// envs/llvm sources, never from headers that many files include.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/env.h"
#include "engine/status.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace compiler_gym::llvm_env {

// Turns a Benchmark into normalized bitcode: compiles C/C++ sources with clang-19 (-O1 with
// LLVM's passes disabled, ClangFrontendFlags(), which keeps functions optimizable unlike -O0),
// parses .bc/.ll (or in-memory data), links several files in process, normalizes (ModuleID and
// source_filename "-", no debug info, no named metadata) and verifies. Errors: kNotFound for a
// missing file, kBenchmarkInit for anything that does not give a valid module: empty input, text
// that does not parse, and corrupt bitcode that crashes LLVM's reader (contained: the process goes
// on).
StatusOr<std::string> LoadBenchmarkBitcode(const Benchmark& benchmark);

// A context for programs under optimization. It discards local value names, as release builds
// of clang do: names that passes invent (%.not2) depend on the history of the symbol table, so
// keeping them would make a fork or a replay print and hash differently from the original.
std::unique_ptr<llvm::LLVMContext> NewContext();

// Registers, in a fixed order, the metadata kinds that LLVM registers on demand, so that every
// context writes the same kind table into bitcode whatever ran in it before.
void RegisterMetadataKinds(llvm::LLVMContext& context);

// The first error LLVM diagnosed in a context from NewContext() since the last call (its
// handler records errors instead of exiting the process); empty if none.
std::string TakeDiagnosedError(llvm::LLVMContext& context);

// Parses bitcode or text IR into `context`. kBenchmarkInit on failure, and for empty input.
// Not crash-contained: for untrusted input use LoadBenchmarkBitcode, which is.
StatusOr<std::unique_ptr<llvm::Module>> ParseModule(llvm::StringRef data, llvm::StringRef name,
                                                    llvm::LLVMContext& context);

// Verifies the module; kInternal-free: returns kFailedPrecondition with the verifier's message.
Status VerifyModule(const llvm::Module& module);

// With `preserve_use_list_order`, parsing the bitcode back gives a module whose use lists are in
// the same order, so passes (some of which walk use lists) behave identically on the copy.
std::string ModuleToBitcode(const llvm::Module& module, bool preserve_use_list_order = false);
std::string ModuleToText(const llvm::Module& module);

// 40 hex digits: SHA-1 of the module's bitcode. Equal modules give equal hashes in any process.
std::string ModuleSha1(const llvm::Module& module);

int64_t IrInstructionCount(const llvm::Module& module);

// Runs `fn` so that a crash or an LLVM fatal error inside it (LLVM reports some, such as
// codegen's "Undefined temporary symbol", by exiting the process) returns false instead of
// ending the process. Whatever `fn` was working on may be half-modified: callers free it with
// FreeAfterCrash.
bool RunCrashContained(const std::function<void()>& fn);

// Installs LLVM's crash recovery (signals and fatal errors unwind to the innermost
// CrashRecoveryContext), and installs it again when another library has since replaced its
// signal handlers. Cheap when nothing changed: one sigaction() query.
void EnsureCrashRecovery();

// Frees, in the order given, what a contained crash left (possibly inconsistent), as LLVM's own
// crash recovery does (clang's cleanup registrars): inside a crash-contained region, so that
// what freeing crashes on is leaked rather than the process lost. Leaking all of it instead
// grew a process by a module's worth (about 250 KB) a crash. unique_ptr::reset lets go of an
// object before destroying it, so nothing is freed twice.
template <typename... T>
void FreeAfterCrash(std::unique_ptr<T>&... owners) {
  RunCrashContained([&] { (owners.reset(), ...); });
}

// Removes a file or directory tree when it goes out of scope, so no temporary survives an error.
class ScopedPath {
 public:
  explicit ScopedPath(std::string path) : path_(std::move(path)) {}
  ScopedPath(const ScopedPath&) = delete;
  ScopedPath& operator=(const ScopedPath&) = delete;
  ~ScopedPath();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// CompilerGym's split_benchmark_by_function: one module per function defined in `ir` (text or
// bitcode), holding that function (external, so nothing drops it) and declarations of what it
// uses, as (function name, IR text) in module order. kBenchmarkInit for input that does not
// parse, kInvalidArgument for a module that defines no function.
StatusOr<std::vector<std::pair<std::string, std::string>>> SplitByFunction(const std::string& ir);

// CompilerGym's merge_benchmarks: the modules linked into one (llvm-link), as IR text.
// kInvalidArgument when they cannot be linked (e.g. two definitions of one symbol).
StatusOr<std::string> LinkModules(const std::vector<std::string>& modules);

// Path to clang-19: $COMPILER_GYM_CLANG, else clang-19 on PATH, else LLVM 19's bin dir.
StatusOr<std::string> ClangPath();

// Path to opt-19 (for the passes that run in a process of their own, passes.h):
// $COMPILER_GYM_OPT, else opt-19 on PATH, else LLVM 19's bin dir.
StatusOr<std::string> OptPath();

// The flags a source benchmark is compiled to bitcode with, before its own: unoptimized IR
// that passes can still optimize (-O1 with LLVM's passes disabled, so no optnone, unlike -O0).
const std::vector<std::string>& ClangFrontendFlags();

// How long one clang-19 run of a benchmark build may take unless the benchmark says.
inline constexpr double kDefaultClangTimeoutSeconds = 300;

}  // namespace compiler_gym::llvm_env
