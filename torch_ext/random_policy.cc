// A random policy on a batch of LLVM environments through the libtorch API: the smallest
// C++ training-loop skeleton.
//
//   build/py/torch_ext/random_policy [num_envs=8] [steps=20] [program.c|.ll|.bc]
#include <cstdlib>
#include <iostream>

#include "torch_ext/torch_vec_env.h"

using compiler_gym::Benchmark;
using compiler_gym::VecEnvConfig;
using compiler_gym::torch_api::TorchBatch;
using compiler_gym::torch_api::TorchVecEnv;

int main(int argc, char** argv) {
  const int num_envs = argc > 1 ? std::atoi(argv[1]) : 8;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 20;
  const std::string program = argc > 3 ? argv[3] : CG_DEFAULT_PROGRAM;
  Benchmark benchmark{.uri = "file://" + program, .files = {program}};
  VecEnvConfig config{.num_envs = num_envs,
                      .observation_spaces = {"Autophase"},
                      .reward_spaces = {"IrInstructionCountOz"}};
  auto env = TorchVecEnv::Create("llvm-v0", {benchmark}, config);
  if (!env.ok()) {
    std::cerr << env.status().ToString() << "\n";
    return 1;
  }
  auto batch = (*env)->Reset();
  if (!batch.ok()) {
    std::cerr << batch.status().ToString() << "\n";
    return 1;
  }
  std::cout << "observations " << batch->observations[0].sizes() << " "
            << batch->observations[0].dtype() << "\n";
  torch::Tensor returns = torch::zeros({num_envs}, torch::kFloat64);
  for (int t = 0; t < steps; ++t) {
    const torch::Tensor actions = torch::randint(0, (*env)->num_actions(), {num_envs}, torch::kInt);
    batch = (*env)->Step(actions);
    if (!batch.ok()) {
      std::cerr << batch.status().ToString() << "\n";
      return 1;
    }
    returns.index_add_(0, batch->env_ids.to(torch::kLong), batch->rewards.select(1, 0));
  }
  std::cout << "after " << steps << " random steps: mean return " << returns.mean().item<double>()
            << " (IrInstructionCountOz), best " << returns.max().item<double>() << "\n";
  return 0;
}
