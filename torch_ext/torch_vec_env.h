// The vector engine for C++ training loops written against libtorch: batches come back as
// torch::Tensor, observations sharing the engine's slab memory (no copy).
//
//   VecEnvConfig config{.num_envs = 8, .observation_spaces = {"Autophase"},
//                       .reward_spaces = {"IrInstructionCountOz"}};
//   ASSIGN_OR_RETURN(auto env, TorchVecEnv::Create("llvm-v0", {benchmark}, config));
//   ASSIGN_OR_RETURN(TorchBatch batch, env->Reset());
//   ASSIGN_OR_RETURN(batch, env->Step(torch::randint(0, env->num_actions(), {8}, torch::kInt)));
//
// Built when CMake finds Torch (the torch wheel ships libtorch); see random_policy.cc.
#pragma once

#include <torch/types.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/status.h"
#include "engine/vec_env.h"

namespace compiler_gym::torch_api {

struct TorchBatch {
  torch::Tensor env_ids;     // int32 [rows]
  torch::Tensor rewards;     // float64 [rows, reward spaces]
  torch::Tensor terminated;  // bool [rows]: the episode ended in an error
  torch::Tensor truncated;   // bool [rows]: max_episode_steps reached
  // One per observation space, [rows, ...] (scalars [rows]); views of the engine's slabs,
  // which the engine does not reuse while a tensor still holds them.
  std::vector<torch::Tensor> observations;
  std::vector<std::string> errors;  // per row: empty, or what went wrong in that env
};

class TorchVecEnv {
 public:
  // `env_id` names an environment of the registry (AllEnvs()); envs take the benchmarks in
  // turn. Every observation space must have a fixed size (tensors are rectangular).
  static StatusOr<std::unique_ptr<TorchVecEnv>> Create(const std::string& env_id,
                                                       std::vector<Benchmark> benchmarks,
                                                       VecEnvConfig config);

  // Resets every env, or those where `mask` (bool [num_envs]) is true; a row for every env (see
  // VecEnv::Reset).
  StatusOr<TorchBatch> Reset(const torch::Tensor& mask = {});
  // One step of every env: integer actions [num_envs] (or [num_envs, actions_per_step]).
  StatusOr<TorchBatch> Step(const torch::Tensor& actions);

  int num_envs() const;
  int num_actions() const;
  const VecEnvConfig& config() const;

 private:
  explicit TorchVecEnv(std::unique_ptr<VecEnv> vec);
  std::unique_ptr<VecEnv> vec_;
};

}  // namespace compiler_gym::torch_api
