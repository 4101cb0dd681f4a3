// Internal to the LLVM family: the per-env state of LlvmEnv (its Impl), shared by the episode
// code (llvm_env.cc) and the observation and reward tables that read it (llvm_spaces.cc).
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "engine/sandbox.h"
#include "envs/llvm/benchmark_cache.h"
#include "envs/llvm/codegen.h"
#include "envs/llvm/llvm_env.h"
#include "envs/llvm/module_prefetch.h"
#include "envs/llvm/module_snapshot.h"
#include "envs/llvm/module_state.h"
#include "envs/llvm/module_util.h"
#include "envs/llvm/passes.h"
#include "envs/llvm/runtime.h"
#ifdef CG_TEST_HOOKS
#include "envs/llvm/test_passes.h"
#endif
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "observations/autophase.h"
#include "observations/inst2vec.h"
#include "observations/instcount.h"
#include "observations/lexed_ir.h"
#include "observations/programl.h"
#include "observations/vocabulary.h"

namespace compiler_gym::llvm_env {

// ---------------------------------------------------------------------------------------------
// Per-env state.

struct LlvmEnv::Impl {
  std::shared_ptr<CachedBenchmark> benchmark;
  // The episode's own context and module. A context per episode also means that passes which
  // mutate context-owned state (-strip-nondebug renames struct types) cannot leak into the next
  // episode.
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  // The next episode's copy of the benchmark, parsed in the background while this one runs.
  std::future<StatusOr<ModuleCopy>> next;
  std::shared_ptr<CachedBenchmark> next_benchmark;

  // Pass infrastructure, kept across steps so analyses survive between passes.
  std::unique_ptr<llvm::TargetMachine> tm;
  std::unique_ptr<llvm::PassBuilder> pb;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;

  // Observations of the current module, dropped whenever the module changes.
  std::vector<std::optional<Observation>> cache;
  // The current module's fingerprint, computed before the first step of a module; each step
  // compares the module against it, whatever the pass reported.
  std::optional<ModuleFingerprint> fingerprint;
  FingerprintCache fingerprint_cache;  // of the current module; cleared when it is replaced
  // TryActions' copy of the module to return to (DoSnapshot), in the module's context: freed
  // before the context is.
  std::unique_ptr<ModuleSnapshot> restore_point;
  // Its object file (with the seconds code generation took) and linked executable, shared by
  // the size, build and run observations; dropped likewise.
  std::optional<std::string> object;
  double object_seconds = 0;
  std::unique_ptr<Executable> executable;
  RunConfig run_config;
  // PassesParameterized's actions after its table: pipelines set with the parameter
  // kPipelineActionsParameter (checked by CheckPipelineAction), copied to forks.
  std::vector<std::string> pipeline_actions;
  // Test hook (kNextStepPipelineParameter): the pipeline the next action runs instead. Always
  // a member (one layout in every build), set only by test builds.
  std::string next_step_pipeline;
  std::string workdir;  // for BitcodeFile; removed with the env
  // The process that made `workdir`. A worker process that forks itself to fork its env
  // (engine/worker.h) copies this state: the copy must neither use nor remove the original's.
  pid_t workdir_owner = 0;

  ~Impl() {
    ClearAnalyses();
    restore_point.reset();
    RetireModule();
    if (!workdir.empty() && workdir_owner == ::getpid()) {
      (void)llvm::sys::fs::remove_directories(workdir);
    }
  }

  // Hands the current module and context to the background worker for destruction. Analyses
  // must have been cleared: they point into the module.
  void RetireModule() {
    restore_point.reset();  // in the same context
    ModuleCopy old;
    old.context = std::move(context);
    old.module = std::move(module);
    DestroyInBackground(std::move(old));
  }

  void ClearAnalyses() {
    // Results are keyed by IR unit pointers: drop them before the module they describe goes.
    lam.clear();
    cgam.clear();
    fam.clear();
    mam.clear();
  }

  void Invalidate() {
    cache.assign(LlvmEnvSpec().observation_spaces.size(), std::nullopt);
    fingerprint.reset();
    object.reset();
    executable.reset();
  }

  StatusOr<const std::string*> ObjectFile() {
    if (!object) {
      const auto start = std::chrono::steady_clock::now();
      ASSIGN_OR_RETURN(std::string bytes, EmitObject(*module));
      object_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      object = std::move(bytes);
    }
    return &*object;
  }

  StatusOr<const Executable*> GetExecutable() {
    if (executable && !executable->owned_here()) executable.reset();  // see owned_here()
    if (!benchmark->benchmark().buildable) {
      return FailedPrecondition(benchmark->benchmark().uri + " is not buildable");
    }
    if (!executable) {
      ASSIGN_OR_RETURN(const std::string* bytes, ObjectFile());
      ASSIGN_OR_RETURN(executable, LinkExecutable(*bytes, benchmark->benchmark(), object_seconds));
    }
    return executable.get();
  }

  Status InitPassInfrastructure() {
    ASSIGN_OR_RETURN(tm, CreateTargetMachine(*module));
    ClearAnalyses();
    lam = llvm::LoopAnalysisManager();
    fam = llvm::FunctionAnalysisManager();
    cgam = llvm::CGSCCAnalysisManager();
    mam = llvm::ModuleAnalysisManager();
    pb = std::make_unique<llvm::PassBuilder>(tm.get());
    pb->registerModuleAnalyses(mam);
    pb->registerCGSCCAnalyses(cgam);
    pb->registerFunctionAnalyses(fam);
    pb->registerLoopAnalyses(lam);
    pb->crossRegisterProxies(lam, fam, cgam, mam);
#ifdef CG_TEST_HOOKS
    pb->registerPipelineParsingCallback(
        [](llvm::StringRef name, llvm::ModulePassManager& mpm,
           llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) { return AddTestPass(name, mpm); });
#endif
    return Status::Ok();
  }

  // After a pass that changed the module (by its fingerprint, not by its word): verifies what
  // changed: the changed functions, or the whole module when anything outside function bodies
  // changed.
  Status VerifyChanged(const ModuleFingerprint& before, const ModuleFingerprint& after) {
    if (before.module != after.module) return VerifyModule(*module);
    // The same function list: fingerprint entries follow the module's functions in order.
    const std::vector<size_t> changed = ChangedFunctions(before, after);
    auto next = changed.begin();
    size_t index = 0;
    for (llvm::Function& function : *module) {
      if (next == changed.end()) break;
      if (index++ != *next) continue;
      ++next;
      std::string message;
      llvm::raw_string_ostream os(message);
      if (llvm::verifyFunction(function, &os)) {
        return FailedPrecondition("function " + function.getName().str() +
                                  " does not verify: " + os.str().substr(0, 2000));
      }
    }
    return Status::Ok();
  }

  // The fingerprint of the module before a step, computed once per module (and timed both as
  // fingerprinting and as verification, which it stands in for).
  void EnsureFingerprint(StepOutcome& outcome);

  // A new pass manager is built for every step: pass objects are built for one run, and some
  // keep state across runs (e.g. -deadargelim's liveness maps, which then point at deleted
  // functions), so reusing them crashes on a later module. Parsing costs under a microsecond.
  bool RunPipelineStep(const std::string& pipeline, const std::string& name, StepOutcome& outcome);
  // A row with own_process: the pass runs in opt-19 on the module's bitcode, and the module it
  // gives back replaces this one (in a new context) when it differs.
  bool RunOwnProcessStep(const PassRow& row, StepOutcome& outcome);

  StatusOr<std::string> Workdir() {
    if (workdir.empty() || workdir_owner != ::getpid()) {
      ASSIGN_OR_RETURN(workdir, MakeTempDir("compiler_gym-env"));
      workdir_owner = ::getpid();
    }
    return workdir;
  }
};

// ---------------------------------------------------------------------------------------------
// The spaces (llvm_spaces.cc): one row per observation space, its spec and the function that
// computes it from the env's state; the rewards as specs (Env computes them from costs).

using ComputeFn = StatusOr<Observation> (*)(LlvmEnv::Impl&);

struct ObservationRow {
  SpaceSpec spec;
  ComputeFn compute;
  bool cacheable = true;  // a pure function of the current module
};

const std::vector<ObservationRow>& ObservationTable();
std::vector<RewardSpec> RewardTable();

}  // namespace compiler_gym::llvm_env
