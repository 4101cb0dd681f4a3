// GccEnv: GCC flag tuning. The state is one choice per option of the compiler's GccSpec; each
// action sets one option to a value, or moves an integer option by a step. Actions never end
// an episode and compile nothing: GCC runs only when an observation or a reward needs its
// output, and what it produced is cached by (compiler, source, command line) for the process.
//
//   auto env = std::make_unique<GccEnv>();
//   RETURN_IF_ERROR(env->SetParameter("gcc_bin", "gcc-12"));   // before the first reset
//   RETURN_IF_ERROR(env->Reset(Benchmark{.uri = "...", .files = {"/path/prog.c"}}));
//   ASSIGN_OR_RETURN(StepOutcome out, env->Step(std::vector<int>{3}));
//   ASSIGN_OR_RETURN(Observation size, env->Observe(env->Spec().ObservationIndex("obj_size")));
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/env.h"
#include "engine/registry.h"
#include "envs/gcc/gcc_spec.h"

namespace compiler_gym::gcc_env {

// One action of the "default" action space.
struct GccAction {
  int option = 0;      // index into GccSpec::options
  bool delta = false;  // false: set the choice to `value`; true: add `value` to it
  int64_t value = 0;
  std::string name;  // "-O2", "-fno-tree-pre", "--param=max-inline-insns-auto[+10]"
};

// The actions of a spec: options of fewer than 10 values get one action per value; larger
// integer ranges get +-1, and +-10, +-100, +-1000 from 50, 500 and 5000 values on.
std::vector<GccAction> MakeActions(const GccSpec& spec);

// The arguments of a state: each chosen option rendered, in option order.
std::vector<std::string> ChoiceArgs(const GccSpec& spec, const std::vector<int64_t>& choices);

// The choices that a command line made of ChoiceArgs() (optionally between a leading compiler
// and the trailing "-w -c src.c -o obj.o") stands for. kInvalidArgument for an argument that no
// option renders to.
StatusOr<std::vector<int64_t>> ParseCommandLine(const GccSpec& spec, const std::string& line);

// Counts of the instructions in assembly: one per line that starts with a tab and a mnemonic
// (directives count, by their first word up to a character other than letters, digits, '.'
// and '-', e.g. ".cfi").
std::map<std::string, int64_t> InstructionCounts(std::string_view assembly);

class GccEnv final : public Env {
 public:
  GccEnv();
  ~GccEnv() override;

  const EnvSpec& Spec() const override;
  StatusOr<Observation> Observe(int observation_index) override;

  // Parameters: gcc_bin (a path or a command; only before the first reset: it decides the
  // spaces), compile_timeout_seconds (> 0, default 60).
  Status SetParameter(const std::string& name, const std::string& value) override;
  StatusOr<std::string> GetParameter(const std::string& name) const override;

  // "gcc_spec": the spec as JSON; "set_choices" (a JSON array, one choice per option): the
  // whole state at once; "parse_command_line": the choices of a command line, as JSON;
  // "cache_stats": the compile cache's counters, as JSON.
  StatusOr<std::string> Call(const std::string& method, const std::string& argument) override;

  struct Impl;

 protected:
  Status DoReset(const Benchmark& benchmark) override;
  StatusOr<StepOutcome> DoStep(std::span<const int> actions) override;
  StatusOr<std::unique_ptr<Env>> DoFork() override;

 private:
  std::unique_ptr<Impl> impl_;
};

// Adds gcc-v0 to the registry.
Status RegisterGccEnvs(Registry& registry);

}  // namespace compiler_gym::gcc_env
