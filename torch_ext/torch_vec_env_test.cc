// Tests of TorchVecEnv on llvm-v0 with the IR fixtures in tests/data: batches match single
// envs, held tensors stay valid, and bad inputs are errors.
#include "torch_ext/torch_vec_env.h"

#include <gtest/gtest.h>

#include "envs/llvm/llvm_env.h"

namespace compiler_gym::torch_api {
namespace {

Benchmark Fixture(const std::string& name) {
  const std::string path = std::string(CG_SOURCE_DIR) + "/tests/data/" + name;
  return Benchmark{.uri = "file://" + path, .files = {path}};
}

VecEnvConfig Config(int num_envs) {
  return VecEnvConfig{.num_envs = num_envs,
                      .num_threads = 2,
                      .observation_spaces = {"Autophase", "IrInstructionCount"},
                      .reward_spaces = {"IrInstructionCount"}};
}

TEST(TorchVecEnv, BatchesMatchSingleEnvs) {
  auto env =
      TorchVecEnv::Create("llvm-v0", {Fixture("autophase.ll"), Fixture("instcount.ll")}, Config(4));
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  auto batch = (*env)->Reset();
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ(batch->observations.size(), 2u);
  EXPECT_EQ(batch->observations[0].sizes(), torch::IntArrayRef({4, 56}));
  EXPECT_EQ(batch->observations[0].dtype(), torch::kInt64);
  EXPECT_EQ(batch->observations[1].sizes(), torch::IntArrayRef({4}));
  EXPECT_TRUE(torch::equal(batch->env_ids, torch::arange(4, torch::kInt32)));

  const int mem2reg = 0;  // any action works; compare with a single env doing the same
  batch = (*env)->Step(torch::full({4}, mem2reg, torch::kInt64));
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  for (int i = 0; i < 4; ++i) {
    llvm_env::LlvmEnv single;
    ASSERT_TRUE(single.Reset(i % 2 == 0 ? Fixture("autophase.ll") : Fixture("instcount.ll")).ok());
    const int action[] = {mem2reg};
    ASSERT_TRUE(single.Step(action).ok());
    auto count = single.Observe(single.Spec().ObservationIndex("IrInstructionCount"));
    ASSERT_TRUE(count.ok());
    EXPECT_EQ(batch->observations[1][i].item<int64_t>(), std::get<int64_t>(*count));
    EXPECT_EQ(batch->errors[i], "");
  }
  EXPECT_EQ(batch->rewards.sizes(), torch::IntArrayRef({4, 1}));
  EXPECT_FALSE(batch->terminated.any().item<bool>());
}

TEST(TorchVecEnv, HeldObservationsAreNotOverwrittenAndOutliveTheEnv) {
  torch::Tensor observations;
  {
    auto env = TorchVecEnv::Create("llvm-v0", {Fixture("autophase.ll")}, Config(2));
    ASSERT_TRUE(env.ok());
    auto batch = (*env)->Reset();
    ASSERT_TRUE(batch.ok());
    observations = batch->observations[0];
    // A second batch while the first is held goes to other slabs: the first is unchanged.
    const torch::Tensor before = observations.clone();
    ASSERT_TRUE((*env)->Step(torch::zeros({2}, torch::kInt32)).ok());
    EXPECT_TRUE(torch::equal(observations, before));
  }
  EXPECT_GT(observations.sum().item<int64_t>(), 0);  // still readable after the env is gone
}

TEST(TorchVecEnv, BadInputsAreErrors) {
  EXPECT_EQ(
      TorchVecEnv::Create("no-such-env", {Fixture("autophase.ll")}, Config(1)).status().code(),
      StatusCode::kNotFound);
  VecEnvConfig text = Config(1);
  text.observation_spaces = {"Ir"};
  EXPECT_EQ(TorchVecEnv::Create("llvm-v0", {Fixture("autophase.ll")}, text).status().code(),
            StatusCode::kInvalidArgument);
  auto env = TorchVecEnv::Create("llvm-v0", {Fixture("autophase.ll")}, Config(2));
  ASSERT_TRUE(env.ok());
  ASSERT_TRUE((*env)->Reset().ok());
  EXPECT_FALSE((*env)->Step(torch::zeros({3}, torch::kInt32)).ok());    // wrong count
  EXPECT_FALSE((*env)->Step(torch::zeros({2}, torch::kFloat32)).ok());  // not integers
  EXPECT_FALSE((*env)->Reset(torch::ones({5}, torch::kBool)).ok());     // wrong mask size
}

}  // namespace
}  // namespace compiler_gym::torch_api
