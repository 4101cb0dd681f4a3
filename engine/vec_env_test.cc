// Tests of VecEnv with test_envs.h's CounterEnv: row order, errors kept to their row, autoreset,
// seeding, async send/recv and determinism across thread counts and modes.
#include "engine/vec_env.h"

#include <gtest/gtest.h>

#include <limits>
#include <set>

#include "engine/test_envs.h"

namespace compiler_gym {
namespace {

EnvFactory CounterFactory() {
  return []() -> StatusOr<std::unique_ptr<Env>> {
    return std::unique_ptr<Env>(std::make_unique<testing::CounterEnv>());
  };
}

// Env i runs benchmark "benchmark://counter/i" unless `overrides` names another.
BenchmarkSampler Sampler(std::map<int, std::string> overrides = {}) {
  return [overrides](int env_id, int64_t, std::mt19937_64&) {
    auto it = overrides.find(env_id);
    return Benchmark{.uri = it != overrides.end()
                                ? it->second
                                : "benchmark://counter/" + std::to_string(env_id)};
  };
}

VecEnvConfig Config(int n, int threads) {
  return VecEnvConfig{.num_envs = n,
                      .num_threads = threads,
                      .observation_spaces = {"Cost", "History", "Trace"},
                      .reward_spaces = {"Delta", "Oz"}};
}

int64_t CostOf(const Batch& b, int row) {
  return static_cast<const int64_t*>(b.slabs->slab(0).data())[row];
}

TEST(VecEnv, SyncStepRowsInEnvOrder) {
  auto vec = VecEnv::Create(CounterFactory(), Sampler(), Config(4, 2));
  ASSERT_TRUE(vec.ok()) << vec.status().ToString();
  auto reset = (*vec)->Reset();
  ASSERT_TRUE(reset.ok());
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ((*reset)->env_ids[i], i);
    EXPECT_EQ(CostOf(**reset, i), 10 + i);
    EXPECT_TRUE((*reset)->is_reset[i]);
  }
  const std::vector<int> actions = {0, 1, 2, 0};
  auto batch = (*vec)->Step(actions);
  ASSERT_TRUE(batch.ok());
  const Batch& b = **batch;
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(CostOf(b, i), 10 + i - (actions[i] + 1));
    EXPECT_DOUBLE_EQ(b.rewards[i * 2], actions[i] + 1);                    // Delta
    EXPECT_DOUBLE_EQ(b.rewards[i * 2 + 1], (actions[i] + 1) / (6.0 + i));  // / (C0 - 4)
    EXPECT_FALSE(b.terminated[i]);
    EXPECT_EQ(b.elapsed_steps[i], 1);
  }
  const auto* history = static_cast<const int64_t*>(b.slabs->slab(1).data());
  EXPECT_EQ(history[1 * 3 + 2], 9);  // env 1: 11 - 2
  EXPECT_EQ(b.slabs->slab(2).RowBytes(2), "2");
}

TEST(VecEnv, SlabsHeldByABatchAreNotOverwritten) {
  auto vec = VecEnv::Create(CounterFactory(), Sampler(), Config(2, 1));
  ASSERT_TRUE(vec.ok());
  ASSERT_TRUE((*vec)->Reset().ok());
  auto first = (*vec)->Step(std::vector<int>{0, 0});
  ASSERT_TRUE(first.ok());
  auto second = (*vec)->Step(std::vector<int>{2, 2});
  ASSERT_TRUE(second.ok());
  EXPECT_NE((*first)->slabs.get(), (*second)->slabs.get());
  EXPECT_EQ(CostOf(**first, 0), 9);
  EXPECT_EQ(CostOf(**second, 0), 6);
  // Once no batch holds a slab set, it is reused.
  const SlabSet* old = (*first)->slabs.get();
  first = Internal("drop");
  auto third = (*vec)->Step(std::vector<int>{0, 0});
  ASSERT_TRUE(third.ok());
  EXPECT_EQ((*third)->slabs.get(), old);
}

TEST(VecEnv, ErrorsStayInTheirRow) {
  auto vec = VecEnv::Create(CounterFactory(), Sampler({{1, "throw"}, {2, "crash"}, {3, "bad"}}),
                            Config(5, 2));
  ASSERT_TRUE(vec.ok());
  auto reset = (*vec)->Reset();
  ASSERT_TRUE(reset.ok());
  EXPECT_EQ((*reset)->errors[3].code(), StatusCode::kBenchmarkInit);
  EXPECT_TRUE((*reset)->terminated[3]);
  auto batch = (*vec)->Step(std::vector<int>{1, 1, 1, 1, 1});
  ASSERT_TRUE(batch.ok());
  const Batch& b = **batch;
  EXPECT_TRUE(b.errors[0].ok());
  EXPECT_EQ(CostOf(b, 0), 8);
  EXPECT_TRUE(b.terminated[1]);
  EXPECT_NE(b.errors[1].message().find("injected exception"), std::string::npos);
  EXPECT_TRUE(b.terminated[2]);
  EXPECT_NE(b.errors[2].message().find("injected crash"), std::string::npos);
  EXPECT_TRUE(b.terminated[3]);  // still cannot load: tried again on this step
  EXPECT_TRUE(b.errors[4].ok());
  EXPECT_EQ(CostOf(b, 4), 14 - 2);
}

// An observation that does not fit its space (a family's bug) is reported in its row, not read
// as zeros; the other rows are whole.
TEST(VecEnv, AnObservationThatDoesNotFitIsAnErrorRow) {
  auto vec = VecEnv::Create(CounterFactory(), Sampler({{1, "short"}}), Config(2, 1));
  ASSERT_TRUE(vec.ok());
  auto batch = (*vec)->Reset();
  ASSERT_TRUE(batch.ok());
  EXPECT_TRUE((*batch)->errors[0].ok());
  EXPECT_EQ((*batch)->errors[1].code(), StatusCode::kInternal);
  EXPECT_NE((*batch)->errors[1].message().find("History"), std::string::npos)
      << (*batch)->errors[1].message();
  EXPECT_EQ(static_cast<const int64_t*>((*batch)->slabs->slab(1).data())[0], 10);
}

TEST(VecEnv, OutOfRangeActionIsAnErrorRow) {
  auto vec = VecEnv::Create(CounterFactory(), Sampler(), Config(2, 1));
  ASSERT_TRUE(vec.ok());
  ASSERT_TRUE((*vec)->Reset().ok());
  auto batch = (*vec)->Step(std::vector<int>{0, 7});
  ASSERT_TRUE(batch.ok());
  EXPECT_FALSE((*batch)->terminated[0]);
  EXPECT_EQ((*batch)->errors[1].code(), StatusCode::kOutOfRange);
  EXPECT_EQ((*vec)->Step(std::vector<int>{0}).status().code(), StatusCode::kInvalidArgument);
}

TEST(VecEnv, TruncationAndNextStepAutoreset) {
  VecEnvConfig config = Config(1, 1);
  config.max_episode_steps = 2;
  auto vec = VecEnv::Create(CounterFactory(), Sampler(), config);
  ASSERT_TRUE(vec.ok());
  ASSERT_TRUE((*vec)->Reset().ok());
  ASSERT_FALSE((**(*vec)->Step(std::vector<int>{0})).truncated[0]);
  auto end = (*vec)->Step(std::vector<int>{0});
  EXPECT_TRUE((*end)->truncated[0]);
  EXPECT_EQ(CostOf(**end, 0), 8);
  // NEXT_STEP: the following step resets and ignores the action.
  auto next = (*vec)->Step(std::vector<int>{2});
  EXPECT_TRUE((*next)->is_reset[0]);
  EXPECT_FALSE((*next)->truncated[0]);
  EXPECT_EQ(CostOf(**next, 0), 10);
  EXPECT_EQ((*next)->episode[0], 1);
  EXPECT_DOUBLE_EQ((*next)->rewards[0], 0.0);
}

TEST(VecEnv, SameStepAutoresetKeepsTheFinalObservation) {
  VecEnvConfig config = Config(1, 1);
  config.max_episode_steps = 1;
  config.autoreset = AutoReset::kSameStep;
  auto vec = VecEnv::Create(CounterFactory(), Sampler(), config);
  ASSERT_TRUE(vec.ok());
  ASSERT_TRUE((*vec)->Reset().ok());
  auto end = (*vec)->Step(std::vector<int>{2});
  ASSERT_TRUE(end.ok());
  EXPECT_TRUE((*end)->truncated[0]);
  EXPECT_TRUE((*end)->is_reset[0]);
  EXPECT_EQ(CostOf(**end, 0), 10);  // the new episode
  ASSERT_TRUE((*end)->final_slabs);
  EXPECT_EQ(static_cast<const int64_t*>((*end)->final_slabs->slab(0).data())[0], 7);
}

TEST(VecEnv, PartialResetByMask) {
  auto vec = VecEnv::Create(CounterFactory(), Sampler(), Config(3, 2));
  ASSERT_TRUE(vec.ok());
  ASSERT_TRUE((*vec)->Reset().ok());
  ASSERT_TRUE((*vec)->Step(std::vector<int>{0, 0, 0}).ok());
  const std::vector<uint8_t> mask = {0, 1, 0};
  auto reset = (*vec)->Reset(mask);
  ASSERT_TRUE(reset.ok());
  // Every env's row: the ones left out keep their last observation, with nothing else.
  ASSERT_EQ((*reset)->rows(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ((*reset)->env_ids[i], i);
    EXPECT_EQ((*reset)->is_reset[i], i == 1);
    EXPECT_EQ((*reset)->rewards[i * 2], 0.0);
    EXPECT_EQ((*reset)->elapsed_steps[i], i == 1 ? 0 : 1);
  }
  EXPECT_EQ(CostOf(**reset, 0), 9);
  EXPECT_EQ(CostOf(**reset, 1), 11);
  EXPECT_EQ(CostOf(**reset, 2), 11);
  auto batch = (*vec)->Step(std::vector<int>{0, 0, 0});
  EXPECT_EQ(CostOf(**batch, 0), 8);
  EXPECT_EQ(CostOf(**batch, 1), 10);
  EXPECT_EQ(CostOf(**batch, 2), 10);
  EXPECT_EQ((*vec)->Reset(std::vector<uint8_t>{1}).status().code(), StatusCode::kInvalidArgument);
}

// Seeds given to a reset decide each env's benchmarks from then on; config.seed s is the seeds
// s, s + 1, ... (gymnasium's numbering).
TEST(VecEnv, ResetSeedsEachEnvsBenchmarkGenerator) {
  auto draws = [](uint64_t config_seed, std::vector<std::optional<uint64_t>> seeds) {
    VecEnvConfig config = Config(3, 2);
    config.seed = config_seed;
    auto sampler = [](int, int64_t, std::mt19937_64& rng) {
      return Benchmark{.uri = "benchmark://counter/" + std::to_string(rng() % 1000)};
    };
    auto vec = VecEnv::Create(CounterFactory(), sampler, config);
    EXPECT_TRUE(vec.ok());
    std::vector<int64_t> costs;
    for (int episode = 0; episode < 2; ++episode) {
      auto batch = (*vec)->Reset({}, seeds);
      EXPECT_TRUE(batch.ok());
      for (int i = 0; i < 3; ++i) costs.push_back(CostOf(**batch, i));
    }
    return costs;
  };
  const auto seeded = draws(0, {7, 7, 8});
  EXPECT_EQ(seeded[0], seeded[1]);  // the same seed, the same benchmark
  EXPECT_NE(seeded[0], seeded[2]);
  EXPECT_EQ(seeded, draws(5, {7, 7, 8}));  // whatever the engine was made with
  // Config seed 7 = seeds {7, 8, 9}; a std::nullopt leaves that env's generator running on.
  const auto from_config = draws(7, {});
  const auto partly = draws(7, {std::nullopt, 8, std::nullopt});
  EXPECT_EQ(from_config[0], seeded[0]);
  EXPECT_EQ(from_config[1], seeded[2]);
  EXPECT_EQ(partly[0], from_config[0]);
  EXPECT_EQ(partly[3], from_config[3]);
  EXPECT_EQ(partly[4], from_config[1]);  // env 1 reseeded with 8 before its second episode too
  auto vec = VecEnv::Create(CounterFactory(), Sampler(), Config(3, 2));
  ASSERT_TRUE(vec.ok());
  EXPECT_EQ((*vec)->Reset({}, std::vector<std::optional<uint64_t>>{1, 2}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(VecEnv, MultistepActions) {
  VecEnvConfig config = Config(2, 2);
  config.actions_per_step = 3;
  auto vec = VecEnv::Create(CounterFactory(), Sampler(), config);
  ASSERT_TRUE(vec.ok());
  ASSERT_TRUE((*vec)->Reset().ok());
  auto batch = (*vec)->Step(std::vector<int>{0, 1, 2, 2, 2, 2});
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(CostOf(**batch, 0), 10 - 6);
  EXPECT_EQ(CostOf(**batch, 1), 11 - 9);
  EXPECT_EQ((*batch)->slabs->slab(2).RowBytes(0), "012");
}

TEST(VecEnv, AsyncSendRecvReturnsFinishers) {
  VecEnvConfig config = Config(6, 2);
  config.batch_size = 2;
  auto vec = VecEnv::Create(CounterFactory(), Sampler(), config);
  ASSERT_TRUE(vec.ok());
  EXPECT_EQ((*vec)->Recv().status().code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE((*vec)->Reset().ok());
  const std::vector<int> ids = {0, 1, 2, 3, 4, 5};
  ASSERT_TRUE((*vec)->Send(std::vector<int>{0, 0, 0, 0, 0, 0}, ids).ok());
  EXPECT_EQ((*vec)->Send(std::vector<int>{0}, std::vector<int>{2}).code(),
            StatusCode::kInvalidArgument);  // in flight
  std::set<int> seen;
  for (int round = 0; round < 3; ++round) {
    auto batch = (*vec)->Recv(std::chrono::milliseconds(10000));
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    ASSERT_EQ((*batch)->rows(), 2);
    for (int j = 0; j < 2; ++j) {
      const int id = (*batch)->env_ids[j];
      seen.insert(id);
      EXPECT_EQ(CostOf(**batch, j), 10 + id - 1);
    }
  }
  EXPECT_EQ(seen.size(), 6u);
  EXPECT_EQ((*vec)->Recv(std::chrono::milliseconds(1)).status().code(),
            StatusCode::kFailedPrecondition);
  // Fewer in flight than batch_size: recv returns what there is.
  ASSERT_TRUE((*vec)->Send(std::vector<int>{1}, std::vector<int>{4}).ok());
  auto one = (*vec)->Recv();
  ASSERT_TRUE(one.ok());
  EXPECT_EQ((*one)->rows(), 1);
  EXPECT_EQ(CostOf(**one, 0), 14 - 1 - 2);
}

// Same seeds and actions: identical outputs whatever the thread count, sync or async.
TEST(VecEnv, DeterministicAcrossThreadCountsAndModes) {
  auto run = [](int threads, bool async) {
    VecEnvConfig config = Config(8, threads);
    config.seed = 42;
    config.max_episode_steps = 5;
    auto sampler = [](int env_id, int64_t episode, std::mt19937_64& rng) {
      return Benchmark{.uri = "benchmark://counter/" + std::to_string(rng() % 50)};
    };
    auto vec = VecEnv::Create(CounterFactory(), sampler, config);
    EXPECT_TRUE(vec.ok());
    EXPECT_TRUE((*vec)->Reset().ok());
    std::vector<std::string> trace(8);
    for (int t = 0; t < 12; ++t) {
      std::vector<int> actions(8);
      for (int i = 0; i < 8; ++i) actions[i] = (i + t) % 3;
      if (async) {
        std::vector<int> ids(8);
        for (int i = 0; i < 8; ++i) ids[i] = i;
        EXPECT_TRUE((*vec)->Send(actions, ids).ok());
        auto batch = (*vec)->Recv();
        EXPECT_TRUE(batch.ok());
        for (int j = 0; j < 8; ++j) {
          trace[(*batch)->env_ids[j]] += std::to_string(CostOf(**batch, j)) + ",";
        }
      } else {
        auto batch = (*vec)->Step(actions);
        for (int i = 0; i < 8; ++i) trace[i] += std::to_string(CostOf(**batch, i)) + ",";
      }
    }
    return trace;
  };
  const auto reference = run(1, false);
  EXPECT_EQ(run(2, false), reference);
  EXPECT_EQ(run(4, false), reference);
  EXPECT_EQ(run(1, true), reference);
  EXPECT_EQ(run(3, true), reference);
}

TEST(VecEnv, BadConfigIsRejected) {
  EXPECT_EQ(
      VecEnv::Create(CounterFactory(), Sampler(), VecEnvConfig{.num_envs = 0}).status().code(),
      StatusCode::kInvalidArgument);
  VecEnvConfig config = Config(2, 1);
  config.observation_spaces = {"Nope"};
  EXPECT_EQ(VecEnv::Create(CounterFactory(), Sampler(), config).status().code(),
            StatusCode::kInvalidArgument);
  config = Config(2, 1);
  config.batch_size = 3;
  EXPECT_EQ(VecEnv::Create(CounterFactory(), Sampler(), config).status().code(),
            StatusCode::kInvalidArgument);
}

// The sync step's order: longest expected first, by each key's moving average; a key not seen
// yet expects the mean of all steps seen; ties keep their positions' order.
TEST(StepCosts, LongestExpectedFirst) {
  StepCosts costs;
  const std::vector<int> keys = {0, 1, 2, -1, 1};
  EXPECT_EQ(costs.LongestFirst(keys), (std::vector<int>{0, 1, 2, 3, 4}));  // nothing known
  costs.Add(0, 1.0);
  costs.Add(1, 4.0);
  costs.Add(-1, 2.0);
  EXPECT_DOUBLE_EQ(costs.Expected(1), 4.0);
  EXPECT_DOUBLE_EQ(costs.Expected(2), 7.0 / 3);  // unseen: the mean of the three
  EXPECT_DOUBLE_EQ(costs.Expected(StepCosts::kMaxKey), 7.0 / 3);
  EXPECT_EQ(costs.LongestFirst(keys), (std::vector<int>{1, 4, 2, 3, 0}));
  costs.Add(1, 0.0);  // a moving average: 0.8 * 4 + 0.2 * 0
  EXPECT_DOUBLE_EQ(costs.Expected(1), 3.2);
  costs.Add(StepCosts::kMaxKey, 100.0);  // the largest key has a place of its own
  EXPECT_DOUBLE_EQ(costs.Expected(StepCosts::kMaxKey), 100.0);
}

// Extreme actions share the cost table's last key (its size stays bounded) and stay errors
// of their own rows: each ends its episode, the next step resets the env, the one after errs
// again.
TEST(VecEnv, ExtremeActionsAreErrorRowsStepAfterStep) {
  auto vec = VecEnv::Create(CounterFactory(), Sampler(), Config(3, 2));
  ASSERT_TRUE(vec.ok());
  ASSERT_TRUE((*vec)->Reset().ok());
  for (int round = 0; round < 4; ++round) {
    auto batch = (*vec)->Step(std::vector<int>{std::numeric_limits<int>::max(), 0, -5});
    ASSERT_TRUE(batch.ok());
    for (int i : {0, 2}) {
      EXPECT_EQ((*batch)->errors[i].code(), round % 2 ? StatusCode::kOk : StatusCode::kOutOfRange);
      EXPECT_EQ((*batch)->is_reset[i], round % 2 == 1);
    }
    EXPECT_TRUE((*batch)->errors[1].ok()) << (*batch)->errors[1].ToString();
  }
}

}  // namespace
}  // namespace compiler_gym
