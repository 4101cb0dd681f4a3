// The vector engine over real LLVM environments: determinism across thread counts and modes,
// and a broken benchmark that stays in its row.
#include <gtest/gtest.h>

#include <random>

#include "engine/vec_env.h"
#include "envs/llvm/llvm_env.h"

namespace compiler_gym {
namespace {

const char* kPrograms[] = {"qsort", "crc32", "sha256", "bitcount"};

std::string Source(const std::string& name) {
  return std::string(CG_SOURCE_DIR) + "/python/compiler_gym/data/builtin-v0/src/" + name + ".c";
}

EnvFactory LlvmFactory() {
  return []() -> StatusOr<std::unique_ptr<Env>> {
    return std::unique_ptr<Env>(std::make_unique<llvm_env::LlvmEnv>());
  };
}

BenchmarkSampler BuiltinSampler(int broken_env = -1) {
  return [broken_env](int env_id, int64_t, std::mt19937_64& rng) {
    if (env_id == broken_env) return Benchmark{.uri = "benchmark://test/broken", .data = "garbage"};
    const std::string name = kPrograms[rng() % 4];
    return Benchmark{.uri = "benchmark://builtin-v0/" + name, .files = {Source(name)}};
  };
}

VecEnvConfig Config(int threads) {
  return VecEnvConfig{.num_envs = 6,
                      .num_threads = threads,
                      .max_episode_steps = 8,
                      .seed = 7,
                      .observation_spaces = {"IrSha1", "Autophase"},
                      .reward_spaces = {"IrInstructionCountOz"}};
}

std::vector<std::string> RunTrace(int threads, bool async) {
  auto vec = VecEnv::Create(LlvmFactory(), BuiltinSampler(), Config(threads));
  EXPECT_TRUE(vec.ok()) << vec.status().ToString();
  EXPECT_TRUE((*vec)->Reset().ok());
  const int n = (*vec)->config().num_envs;
  const int num_actions = static_cast<int>((*vec)->spec().action_spaces[0].action_names.size());
  std::mt19937_64 rng(123);
  std::vector<std::string> trace(n);
  for (int t = 0; t < 20; ++t) {
    std::vector<int> actions(n);
    for (int& a : actions) a = static_cast<int>(rng() % num_actions);
    BatchPtr batch;
    if (async) {
      std::vector<int> ids(n);
      for (int i = 0; i < n; ++i) ids[i] = i;
      EXPECT_TRUE((*vec)->Send(actions, ids).ok());
      batch = (*vec)->Recv().value();
    } else {
      batch = (*vec)->Step(actions).value();
    }
    for (int j = 0; j < batch->rows(); ++j) {
      EXPECT_TRUE(batch->errors[j].ok()) << batch->errors[j].ToString();
      trace[batch->env_ids[j]] +=
          batch->slabs->slab(0).RowBytes(j) + " " + std::to_string(batch->rewards[j]) + "\n";
    }
  }
  return trace;
}

TEST(VecEnvLlvm, SameIrOnAnyThreadCountSyncOrAsync) {
  const auto reference = RunTrace(1, false);
  EXPECT_EQ(RunTrace(2, false), reference);
  EXPECT_EQ(RunTrace(3, true), reference);
}

TEST(VecEnvLlvm, BrokenBenchmarkStaysInItsRow) {
  auto vec = VecEnv::Create(LlvmFactory(), BuiltinSampler(/*broken_env=*/2), Config(2));
  ASSERT_TRUE(vec.ok());
  auto reset = (*vec)->Reset();
  ASSERT_TRUE(reset.ok());
  for (int i = 0; i < 6; ++i) {
    if (i == 2) {
      EXPECT_EQ((*reset)->errors[i].code(), StatusCode::kBenchmarkInit);
    } else {
      EXPECT_TRUE((*reset)->errors[i].ok()) << i;
      EXPECT_EQ((*reset)->slabs->slab(0).RowBytes(i).size(), 40u);
    }
  }
  auto batch = (*vec)->Step(std::vector<int>(6, 0));
  ASSERT_TRUE(batch.ok());
  for (int i = 0; i < 6; ++i) EXPECT_EQ((*batch)->errors[i].ok(), i != 2) << i;
}

}  // namespace
}  // namespace compiler_gym
