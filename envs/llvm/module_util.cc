// Loading benchmarks into normalized bitcode (IR files, in-memory data, or sources compiled with
// clang-19, linked into one module), contexts that record LLVM's errors instead of exiting, and
// the serializing, hashing and counting helpers.
#include "envs/llvm/module_util.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>

#include "engine/sandbox.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA1.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/Cloning.h"

namespace compiler_gym::llvm_env {

namespace {

bool EndsWith(llvm::StringRef s, llvm::StringRef suffix) { return s.ends_with(suffix); }

bool IsSourceFile(llvm::StringRef path) {
  for (const char* ext : {".c", ".cc", ".cpp", ".cxx", ".C", ".i", ".ii"}) {
    if (EndsWith(path, ext)) return true;
  }
  return false;
}

void Normalize(llvm::Module& module) {
  module.setModuleIdentifier("-");
  module.setSourceFileName("-");
  llvm::StripDebugInfo(module);
  // Named metadata (llvm.ident, llvm.module.flags, ...) is dropped: it carries the
  // producer's identity, which would make equal programs hash differently.
  std::vector<llvm::NamedMDNode*> named;
  for (llvm::NamedMDNode& node : module.named_metadata()) named.push_back(&node);
  for (llvm::NamedMDNode* node : named) module.eraseNamedMetadata(node);
}

}  // namespace

ScopedPath::~ScopedPath() {
  if (!path_.empty()) (void)llvm::sys::fs::remove_directories(path_);
}

StatusOr<std::string> ClangPath() {
  if (const char* env = std::getenv("COMPILER_GYM_CLANG"); env != nullptr && *env) {
    return std::string(env);
  }
  if (auto found = llvm::sys::findProgramByName("clang-19")) return *found;
  if (llvm::sys::fs::exists("/usr/lib/llvm-19/bin/clang"))
    return std::string("/usr/lib/llvm-19/bin/clang");
  return NotFound("clang-19 not found: install Debian's clang-19 or set COMPILER_GYM_CLANG");
}

StatusOr<std::string> OptPath() {
  if (const char* env = std::getenv("COMPILER_GYM_OPT"); env != nullptr && *env) {
    return std::string(env);
  }
  if (auto found = llvm::sys::findProgramByName("opt-19")) return *found;
  if (llvm::sys::fs::exists("/usr/lib/llvm-19/bin/opt"))
    return std::string("/usr/lib/llvm-19/bin/opt");
  return NotFound("opt-19 not found: install Debian's llvm-19 or set COMPILER_GYM_OPT");
}

const std::vector<std::string>& ClangFrontendFlags() {
  static const std::vector<std::string> flags = {
      "-O1", "-Xclang", "-disable-llvm-passes", "-Xclang", "-disable-llvm-optzns", "-emit-llvm"};
  return flags;
}

namespace {
// The signals CrashRecoveryContext catches, and its handlers as it installed them.
constexpr int kRecoveredSignals[] = {SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGTRAP};
struct sigaction recovery_actions[std::size(kRecoveredSignals)];
std::atomic<void (*)(int)> recovery_abort_handler{nullptr};
std::mutex recovery_mu;

void (*CurrentHandler(int signal))(int) {
  struct sigaction now{};
  sigaction(signal, nullptr, &now);
  return now.sa_handler;
}
}  // namespace

void EnsureCrashRecovery() {
  if (auto ours = recovery_abort_handler.load(); ours != nullptr && CurrentHandler(SIGABRT) == ours)
    return;
  std::lock_guard<std::mutex> lock(recovery_mu);
  if (recovery_abort_handler.load() == nullptr) {
    llvm::CrashRecoveryContext::Enable();
    for (size_t i = 0; i < std::size(kRecoveredSignals); ++i) {
      sigaction(kRecoveredSignals[i], nullptr, &recovery_actions[i]);
    }
    recovery_abort_handler.store(recovery_actions[0].sa_handler);
    return;
  }
  // Another library replaced the handlers (Ray's core does in a driver process): theirs would
  // end the process on a pass's crash. Ours go back; LLVM's still hand a crash outside any
  // recovery context to the handlers that were there before LLVM's.
  for (size_t i = 0; i < std::size(kRecoveredSignals); ++i) {
    sigaction(kRecoveredSignals[i], &recovery_actions[i], nullptr);
  }
}

bool RunCrashContained(const std::function<void()>& fn) {
  EnsureCrashRecovery();
  llvm::CrashRecoveryContext crc;
  return crc.RunSafely(fn);
}

namespace {

// LLVM's default handler prints an error diagnostic and calls exit(1) (the backend reports
// input it cannot assemble this way), which no CrashRecoveryContext can stop. This one
// records the first error for TakeDiagnosedError() and lets the caller fail cleanly.
struct RecordingDiagnosticHandler : llvm::DiagnosticHandler {
  mutable std::string first_error;  // taken through LLVMContext's const accessor
  bool handleDiagnostics(const llvm::DiagnosticInfo& info) override {
    if (info.getSeverity() == llvm::DS_Error && first_error.empty()) {
      std::string text;
      llvm::raw_string_ostream os(text);
      llvm::DiagnosticPrinterRawOStream printer(os);
      info.print(printer);
      first_error = os.str();
    }
    return true;  // handled: nothing printed, the process goes on
  }
};

}  // namespace

void RegisterMetadataKinds(llvm::LLVMContext& context) {
  // The bitcode writer writes every metadata kind its context knows, used or not, and LLVM
  // registers some kinds only when code first asks for them: llvm::StripDebugInfo asks for
  // "heapallocsite", -irce for "loop_constrainer.loop.clone" when it clones a loop. Without
  // this, the bytes of an unchanged module (and its IrSha1) would depend on which passes had
  // run in its context. These are all the kinds beyond LLVM 19's fixed ones that running every
  // pass of the action table on 16 modules (8 built-in programs, raw and after mem2reg,
  // simplifycfg, loop-rotate, instcombine) registered; the fuzzer's stale-hash check
  // (compiler_gym.bin.fuzz) finds any other.
  for (const char* kind : {"heapallocsite", "loop_constrainer.loop.clone"}) {
    (void)context.getMDKindID(kind);
  }
}

std::unique_ptr<llvm::LLVMContext> NewContext() {
  auto context = std::make_unique<llvm::LLVMContext>();
  RegisterMetadataKinds(*context);
  context->setDiscardValueNames(true);
  context->setDiagnosticHandler(std::make_unique<RecordingDiagnosticHandler>());
  return context;
}

std::string TakeDiagnosedError(llvm::LLVMContext& context) {
  // Every context the environments use comes from NewContext(), so the handler is ours.
  const auto* handler = static_cast<const RecordingDiagnosticHandler*>(context.getDiagHandlerPtr());
  if (handler == nullptr) return "";
  return std::exchange(handler->first_error, std::string());
}

StatusOr<std::unique_ptr<llvm::Module>> ParseModule(llvm::StringRef data, llvm::StringRef name,
                                                    llvm::LLVMContext& context) {
  // Empty text parses as an empty module, which is no program to optimize.
  if (data.trim().empty())
    return BenchmarkInitError("Failed to parse LLVM bitcode: \"" + name.str() + "\": it is empty");
  llvm::SMDiagnostic diagnostic;
  auto buffer = llvm::MemoryBuffer::getMemBuffer(data, name, /*RequiresNullTerminator=*/false);
  std::unique_ptr<llvm::Module> module =
      llvm::parseIR(buffer->getMemBufferRef(), diagnostic, context);
  if (!module) {
    std::string message;
    llvm::raw_string_ostream os(message);
    diagnostic.print(nullptr, os, /*ShowColors=*/false);
    // CompilerGym's words (for bitcode and IR text alike), then LLVM's diagnostic.
    return BenchmarkInitError("Failed to parse LLVM bitcode: \"" + name.str() + "\": " + os.str());
  }
  // Bitcode does not store the ModuleID; parsing would name the module after the buffer.
  module->setModuleIdentifier("-");
  return module;
}

Status VerifyModule(const llvm::Module& module) {
  std::string message;
  llvm::raw_string_ostream os(message);
  if (llvm::verifyModule(module, &os)) {
    os.flush();
    return FailedPrecondition("module does not verify: " + message.substr(0, 2000));
  }
  return Status::Ok();
}

std::string ModuleToBitcode(const llvm::Module& module, bool preserve_use_list_order) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::WriteBitcodeToFile(module, os, preserve_use_list_order);
  os.flush();
  return out;
}

std::string ModuleToText(const llvm::Module& module) {
  std::string out;
  llvm::raw_string_ostream os(out);
  module.print(os, nullptr);
  os.flush();
  return out;
}

std::string ModuleSha1(const llvm::Module& module) {
  const std::string bitcode = ModuleToBitcode(module);
  llvm::SHA1 sha1;
  sha1.update(llvm::StringRef(bitcode));
  const auto digest = sha1.final();
  return llvm::toHex(digest, /*LowerCase=*/true);
}

int64_t IrInstructionCount(const llvm::Module& module) {
  int64_t count = 0;
  for (const llvm::Function& function : module) count += function.getInstructionCount();
  return count;
}

namespace {

StatusOr<std::string> LoadBitcodeIn(const Benchmark& benchmark, llvm::LLVMContext& context) {
  std::unique_ptr<llvm::Module> linked;
  auto add_module = [&](std::unique_ptr<llvm::Module> module) -> Status {
    if (!linked) {
      linked = std::move(module);
      return Status::Ok();
    }
    if (llvm::Linker::linkModules(*linked, std::move(module))) {
      return BenchmarkInitError("cannot link the files of " + benchmark.uri + ": " +
                                TakeDiagnosedError(context));
    }
    return Status::Ok();
  };

  if (benchmark.files.empty()) {
    if (benchmark.data.empty())
      return InvalidArgument("benchmark " + benchmark.uri + " has no program");
    ASSIGN_OR_RETURN(auto module, ParseModule(benchmark.data, benchmark.uri, context));
    RETURN_IF_ERROR(add_module(std::move(module)));
  }

  std::unique_ptr<ScopedPath> workdir;
  for (const std::string& file : benchmark.files) {
    if (!llvm::sys::fs::exists(file)) return NotFound("benchmark file not found: " + file);
    std::string input = file;
    if (IsSourceFile(file)) {
      if (!workdir) {
        ASSIGN_OR_RETURN(std::string dir, MakeTempDir("compiler_gym-cc"));
        workdir = std::make_unique<ScopedPath>(std::move(dir));
      }
      llvm::SmallString<256> output(workdir->path());
      llvm::sys::path::append(output, std::to_string(&file - benchmark.files.data()) + ".bc");
      ASSIGN_OR_RETURN(const std::string clang, ClangPath());
      std::vector<std::string> args = {clang};
      args.insert(args.end(), ClangFrontendFlags().begin(), ClangFrontendFlags().end());
      args.insert(args.end(), {"-c", file, "-o", std::string(output.str())});
      args.insert(args.end(), benchmark.compile_args.begin(), benchmark.compile_args.end());
      // In the caller's directory: benchmark paths and include flags may be relative.
      llvm::SmallString<256> cwd;
      if (llvm::sys::fs::current_path(cwd)) return Internal("cannot read the current directory");
      const SandboxLimits limits{.timeout_seconds = benchmark.build_timeout_seconds > 0
                                                        ? benchmark.build_timeout_seconds
                                                        : kDefaultClangTimeoutSeconds};
      ASSIGN_OR_RETURN(ProcessResult compiled, RunSandboxed(args, limits, std::string(cwd.str())));
      if (!compiled.ok()) {
        return BenchmarkInitError("cannot compile " + file + ": clang-19 " +
                                  compiled.Describe(limits) + "\n" +
                                  compiled.stderr_text.substr(0, 4000));
      }
      input = std::string(output.str());
    }
    auto buffer = llvm::MemoryBuffer::getFile(input);
    if (!buffer) return ErrnoStatus(buffer.getError().value(), "cannot read " + input);
    ASSIGN_OR_RETURN(auto module, ParseModule((*buffer)->getBuffer(), file, context));
    RETURN_IF_ERROR(add_module(std::move(module)));
  }

  Normalize(*linked);
  if (linked->getTargetTriple().empty()) {
    // Target-independent IR is compiled for the host, the only target we generate code for.
    linked->setTargetTriple(llvm::sys::getDefaultTargetTriple());
  }
  Status verified = VerifyModule(*linked);
  if (!verified.ok()) return BenchmarkInitError(benchmark.uri + ": " + verified.message());
  // An empty C file compiles to an empty module: no program, though it loads.
  const auto defined = [](const llvm::GlobalValue& value) { return !value.isDeclaration(); };
  if (std::none_of(linked->begin(), linked->end(), defined) &&
      std::none_of(linked->global_begin(), linked->global_end(), defined)) {
    return BenchmarkInitError(benchmark.uri +
                              ": the program defines no function or variable: nothing to optimize");
  }
  return ModuleToBitcode(*linked);
}

}  // namespace

StatusOr<std::string> LoadBenchmarkBitcode(const Benchmark& benchmark) {
  // Text IR cannot be read into a context that discards names; the envs' contexts drop them
  // when they parse the cached bitcode.
  auto context = std::make_unique<llvm::LLVMContext>();
  RegisterMetadataKinds(*context);
  context->setDiagnosticHandler(std::make_unique<RecordingDiagnosticHandler>());
  // LLVM's readers trust their input: a corrupt file can make them dereference garbage or ask
  // for an absurd allocation (reported as "out of memory", then abort). Both are contained
  // here, and what the reader built (the context owns it) is freed crash-contained.
  std::optional<StatusOr<std::string>> result;
  if (!RunCrashContained([&] { result = LoadBitcodeIn(benchmark, *context); })) {
    FreeAfterCrash(context);
    return BenchmarkInitError("LLVM crashed while reading " + benchmark.uri +
                              ": the program is corrupt or not LLVM IR");
  }
  return std::move(*result);
}

StatusOr<std::vector<std::pair<std::string, std::string>>> SplitByFunction(const std::string& ir) {
  llvm::LLVMContext context;
  context.setDiagnosticHandler(std::make_unique<RecordingDiagnosticHandler>());
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> module, ParseModule(ir, "split", context));
  std::vector<std::pair<std::string, std::string>> parts;
  for (const llvm::Function& function : *module) {
    if (function.isDeclaration()) continue;
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> part = llvm::CloneModule(
        *module, map, [&](const llvm::GlobalValue* value) { return value == &function; });
    // What is not cloned became an external declaration; drop the ones nothing uses.
    bool erased = true;
    while (erased) {
      erased = false;
      for (llvm::GlobalValue& value : llvm::make_early_inc_range(part->global_values())) {
        if (!value.isDeclaration() || !value.use_empty() || value.getName() == function.getName())
          continue;
        value.eraseFromParent();
        erased = true;
      }
    }
    llvm::Function* kept = part->getFunction(function.getName());
    kept->setLinkage(llvm::GlobalValue::ExternalLinkage);
    kept->setVisibility(llvm::GlobalValue::DefaultVisibility);
    RETURN_IF_ERROR(VerifyModule(*part));
    parts.emplace_back(function.getName().str(), ModuleToText(*part));
  }
  if (parts.empty()) return InvalidArgument("the module defines no function to split out");
  return parts;
}

StatusOr<std::string> LinkModules(const std::vector<std::string>& modules) {
  if (modules.empty()) return InvalidArgument("no modules to merge");
  auto context = std::make_unique<llvm::LLVMContext>();
  context->setDiagnosticHandler(std::make_unique<RecordingDiagnosticHandler>());
  std::unique_ptr<llvm::Module> linked;
  for (size_t i = 0; i < modules.size(); ++i) {
    ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> module,
                     ParseModule(modules[i], "merge" + std::to_string(i), *context));
    if (!linked) {
      linked = std::move(module);
    } else if (llvm::Linker::linkModules(*linked, std::move(module))) {
      return InvalidArgument("cannot merge module " + std::to_string(i) + ": " +
                             TakeDiagnosedError(*context));
    }
  }
  RETURN_IF_ERROR(VerifyModule(*linked));
  return ModuleToText(*linked);
}

}  // namespace compiler_gym::llvm_env
