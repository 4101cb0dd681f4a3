// loop_tool-v0: an agent reshapes the loop nest of a small tensor program; the environment
// compiles it for an NVIDIA GPU (benchmark://loop_tool-cuda-v0/...) or the CPU
// (benchmark://loop_tool-cpu-v0/...), runs it, checks its output, and the reward is the
// measured FLOP/s. CompilerGym's loop_tool semantics first; see loop_ir.h for the IR and
// the actions, backend.h for compiling and timing.
//
//   auto env = std::make_unique<LoopToolEnv>();
//   RETURN_IF_ERROR(env->Reset(Benchmark{.uri = "benchmark://loop_tool-cpu-v0/1024"}));
//   ASSIGN_OR_RETURN(StepOutcome out, env->Step(std::vector<int>{0, 1}));  // select, next loop
//   ASSIGN_OR_RETURN(Observation flops, env->Observe(env->Spec().ObservationIndex("flops")));
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "engine/env.h"
#include "engine/registry.h"
#include "envs/loop_tool/loop_ir.h"

namespace compiler_gym::loop_tool_env {

struct ProgramData;
enum class Device;

class LoopToolEnv final : public Env {
 public:
  LoopToolEnv();
  ~LoopToolEnv() override;

  const EnvSpec& Spec() const override;
  StatusOr<Observation> Observe(int observation_index) override;

  // Parameters: warmup_runs (>= 0, default 3), timing_repetitions (>= 1, default 20),
  // timing_budget_seconds (> 0, default 1: runs past it are dropped, one always stays),
  // cuda_ptxas (the path of ptxas to assemble CUDA kernels with in the compiling thread;
  // default "": the driver's JIT, which serializes loads across threads).
  Status SetParameter(const std::string& name, const std::string& value) override;
  StatusOr<std::string> GetParameter(const std::string& name) const override;

  // "ptx" (argument: an architecture such as sm_80, default sm_80): the current loop tree's
  // PTX, made without a GPU; "schedule": the loops, cursor and mode as JSON; "inputs": the
  // program's input tensors, and "run": its output under the current loop tree, unchecked
  // (JSON lists, for tests against NumPy).
  StatusOr<std::string> Call(const std::string& method, const std::string& argument) override;

 protected:
  Status DoReset(const Benchmark& benchmark) override;
  StatusOr<StepOutcome> DoStep(std::span<const int> actions) override;
  StatusOr<std::unique_ptr<Env>> DoFork() override;

 private:
  StatusOr<double> Seconds();

  std::shared_ptr<ProgramData> data_;
  Device device_;
  Schedule schedule_;
  std::optional<double> seconds_;  // the current loop tree's measured run time
  int warmup_ = 3;
  int repetitions_ = 20;
  double budget_seconds_ = 1.0;
  std::string ptxas_;
};

// Adds the loop_tool family and loop_tool-v0 to the registry.
Status RegisterLoopToolEnvs(Registry& registry);

}  // namespace compiler_gym::loop_tool_env
