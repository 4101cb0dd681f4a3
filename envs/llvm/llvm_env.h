// LlvmEnv: LLVM 19 phase ordering. Each action runs one pass (a row of PassTable()) on the
// whole module, in process. The pass builder and analysis managers are kept across steps, but
// the analyses they cache are cleared after every step, so an env's state is its module alone.
//
//   auto env = std::make_unique<LlvmEnv>();
//   RETURN_IF_ERROR(env->Reset(Benchmark{.uri = "file:///tmp/a.bc", .files = {"/tmp/a.bc"}}));
//   ASSIGN_OR_RETURN(StepOutcome out, env->Step(std::vector<int>{3}));  // PassTable()[3]
//
// LLVM types stay behind the pimpl so this header is cheap to include.
#pragma once

#include <memory>

#include "engine/env.h"
#include "engine/registry.h"
#include "observations/inst2vec.h"

namespace compiler_gym::llvm_env {

// The spaces: action space "PassesAll", the observation table, the reward table.
const EnvSpec& LlvmEnvSpec();

struct SemanticsOptions {
  // Also build the optimized module with AddressSanitizer and run it.
  bool address_sanitizer = false;
  // Also build it with UBSan's IR-level check (local-bounds, trapping). The other UBSan checks
  // are inserted by clang's frontend from source, so no build of a module can have them.
  bool undefined_sanitizer = false;
};

class LlvmEnv final : public Env {
 public:
  LlvmEnv();
  ~LlvmEnv() override;

  const EnvSpec& Spec() const override { return LlvmEnvSpec(); }
  StatusOr<Observation> Observe(int observation_index) override;
  int NumActions(int action_space) const override;

  // Test builds only (CG_BUILD_TESTS, which compiles this library with CG_TEST_HOOKS): declared
  // everywhere, so that the class is the same in every translation unit, but defined, and the
  // parameter accepted, in test builds alone; a production build has no door to either.
  // Runs a textual pipeline as one step, for tests of failure containment: besides LLVM's
  // passes it accepts "compiler-gym-test-fatal-error", "compiler-gym-test-segfault",
  // "compiler-gym-test-miscompile" and "compiler-gym-test-silent-change" (changes the IR while
  // reporting every analysis preserved).
  // The same through any env, in process or in a worker: SetParameter(kNextStepPipelineParameter,
  // pipeline) makes the next action run `pipeline` instead (once); "compiler-gym-test-hang" and
  // "compiler-gym-test-alloc" (under a memory limit only) are for isolated envs.
  StatusOr<StepOutcome> StepPipelineForTesting(const std::string& pipeline);
  static constexpr char kNextStepPipelineParameter[] = "testing.next_step_pipeline";

  // PassesParameterized's pipeline actions, one per line: action table.size() + i runs line i
  // (CheckPipelineAction refuses a line that is not a pipeline of the table's passes). A new
  // value must start with the old one: actions already taken keep their meaning.
  static constexpr char kPipelineActionsParameter[] = "llvm.pipeline_actions";

  // Parameters: runtime_observation_count (measured runs, >= 1), runtime_warmup_runs_count
  // (>= 0), runtime_timeout_seconds (> 0), runtime_memory_bytes (>= 0; 0 = unlimited), and
  // kPipelineActionsParameter.
  Status SetParameter(const std::string& name, const std::string& value) override;
  StatusOr<std::string> GetParameter(const std::string& name) const override;

  // Differential test of the current module: built and run with the benchmark's inputs, it
  // must end like the unoptimized program (default<O0>; exit code and standard output), and
  // like the benchmark's expected output when it has one. Returns the problems found, empty
  // when there are none. kFailedPrecondition when the benchmark is not runnable or there is
  // no module (no episode, or it ended in an error).
  StatusOr<std::vector<std::string>> CheckSemantics(const SemanticsOptions& options);

  // Call("check_semantics", "address undefined") is CheckSemantics with the named sanitizers
  // (none, one or both), returning the problems as a JSON array of strings.
  StatusOr<std::string> Call(const std::string& method, const std::string& argument) override;

  struct Impl;

 protected:
  Status DoReset(const Benchmark& benchmark) override;
  StatusOr<StepOutcome> DoStep(std::span<const int> actions) override;
  StatusOr<std::unique_ptr<Env>> DoFork() override;
  // A copy of the module in its own context (ModuleSnapshot, held by the env so that a crash
  // that frees the context frees it first), and the module as bitcode with its name counts. A
  // restore puts back only the function bodies the candidate changed (or clones the copy
  // whole); after a candidate that changed the context, or crashed, it parses the bitcode into
  // a new context, as a fork would. The observations cached stay when nothing changed.
  StatusOr<std::unique_ptr<EnvSnapshot>> DoSnapshot() override;
  Status DoRestore(const EnvSnapshot& snapshot, bool changed) override;
  Status CheckRestoreForTesting(const std::string& bitcode);

 private:
  std::unique_ptr<Impl> impl_;
};

// The inst2vec statements and contextual flow graph of a module given as IR text or bitcode,
// for the inst2vec trainer. kBenchmarkInit when it does not parse.
StatusOr<observations::Inst2vecStatementGraph> Inst2vecStatementGraphOf(std::string_view ir);

// Adds the llvm family (its operations, benchmark probe, the Inst2vec gather, shutdown) and
// the llvm-* environment ids to the registry (llvm_family.cc).
Status RegisterLlvmEnvs(Registry& registry);

}  // namespace compiler_gym::llvm_env
