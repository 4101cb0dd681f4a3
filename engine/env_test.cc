// Tests of the Env base class (episode rules, reward formulas, fork) with a tiny counter env.
#include "engine/env.h"

#include <gtest/gtest.h>

#include "engine/registry.h"

namespace compiler_gym {
namespace {

// State: a cost that each action lowers by (action + 1). Observations: the cost, the initial
// cost (10), and a baseline (4).
class CounterEnv final : public Env {
 public:
  const EnvSpec& Spec() const override {
    static const EnvSpec spec = [] {
      EnvSpec s;
      s.family = "counter";
      s.action_spaces = {{"dec", {"-1", "-2", "-3"}, ""}};
      for (const char* name : {"Cost", "CostO0", "CostOz"}) {
        SpaceSpec o;
        o.name = name;
        o.dtype = DType::kInt64;
        s.observation_spaces.push_back(o);
      }
      s.reward_spaces = {
          {"Delta", "Cost", "CostO0", "", RewardKind::kDelta},
          {"Norm", "Cost", "CostO0", "", RewardKind::kNormByInitial},
          {"Oz", "Cost", "CostO0", "CostOz", RewardKind::kNormByBaseline},
      };
      return s;
    }();
    return spec;
  }
  StatusOr<Observation> Observe(int index) override {
    const int64_t values[] = {cost_, 10, 4};
    return Observation(values[index]);
  }

 protected:
  Status DoReset(const Benchmark& benchmark) override {
    if (benchmark.uri == "bad") return BenchmarkInitError("bad benchmark");
    cost_ = 10;
    return Status::Ok();
  }
  StatusOr<StepOutcome> DoStep(std::span<const int> actions) override {
    StepOutcome out;
    for (int a : actions) {
      cost_ -= a + 1;
      out.action_had_no_effect = false;
    }
    return out;
  }
  StatusOr<std::unique_ptr<Env>> DoFork() override {
    auto copy = std::make_unique<CounterEnv>();
    copy->cost_ = cost_;
    return std::unique_ptr<Env>(std::move(copy));
  }

 private:
  int64_t cost_ = 10;
};

Benchmark B(const std::string& uri) { return Benchmark{.uri = uri}; }

TEST(Env, StepBeforeResetIsAnError) {
  CounterEnv env;
  const int a[] = {0};
  EXPECT_EQ(env.Step(a).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(env.Reward(0).status().code(), StatusCode::kFailedPrecondition);
}

TEST(Env, OutOfRangeActionChangesNothing) {
  CounterEnv env;
  ASSERT_TRUE(env.Reset(B("ok")).ok());
  const int bad[] = {0, 3};
  EXPECT_EQ(env.Step(bad).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(std::get<int64_t>(env.Observe(0).value()), 10);
  const int negative[] = {-1};
  EXPECT_EQ(env.Step(negative).status().code(), StatusCode::kOutOfRange);
}

TEST(Env, FailedResetLeavesNoEpisode) {
  CounterEnv env;
  EXPECT_EQ(env.Reset(B("bad")).code(), StatusCode::kBenchmarkInit);
  EXPECT_FALSE(env.in_episode());
  ASSERT_TRUE(env.Reset(B("ok")).ok());
  EXPECT_TRUE(env.in_episode());
}

TEST(Env, RewardFormulas) {
  CounterEnv env;
  ASSERT_TRUE(env.Reset(B("ok")).ok());
  const int a2[] = {1};  // cost 10 -> 8
  ASSERT_TRUE(env.Step(a2).ok());
  EXPECT_DOUBLE_EQ(env.Reward(0).value(), 2.0);             // 10 - 8
  EXPECT_DOUBLE_EQ(env.Reward(1).value(), 2.0 / 10);        // first use: prev = C0
  EXPECT_DOUBLE_EQ(env.Reward(2).value(), 2.0 / (10 - 4));  // / max(C0 - Cb, 1)
  const int a3[] = {2};  // cost 8 -> 5
  ASSERT_TRUE(env.Step(a3).ok());
  EXPECT_DOUBLE_EQ(env.Reward(0).value(), 3.0);
  EXPECT_DOUBLE_EQ(env.Reward(0).value(), 0.0);  // nothing changed since it was last computed
  EXPECT_DOUBLE_EQ(env.Reward(2).value(), 3.0 / 6);
  EXPECT_EQ(env.Reward(7).status().code(), StatusCode::kInvalidArgument);
}

TEST(Env, ResetRestartsRewardBookkeeping) {
  CounterEnv env;
  ASSERT_TRUE(env.Reset(B("ok")).ok());
  const int a[] = {2};
  ASSERT_TRUE(env.Step(a).ok());
  ASSERT_TRUE(env.Reward(0).ok());
  ASSERT_TRUE(env.Reset(B("ok")).ok());
  ASSERT_TRUE(env.Step(a).ok());
  EXPECT_DOUBLE_EQ(env.Reward(0).value(), 3.0);
}

TEST(Env, ForkCopiesStateAndRewards) {
  CounterEnv env;
  ASSERT_TRUE(env.Reset(B("ok")).ok());
  const int a[] = {0};
  ASSERT_TRUE(env.Step(a).ok());
  ASSERT_TRUE(env.Reward(0).ok());
  auto fork = env.Fork();
  ASSERT_TRUE(fork.ok());
  ASSERT_TRUE((*fork)->Step(a).ok());
  ASSERT_TRUE(env.Step(a).ok());
  EXPECT_DOUBLE_EQ((*fork)->Reward(0).value(), env.Reward(0).value());
  EXPECT_EQ((*fork)->benchmark_uri(), "ok");
}

TEST(Registry, TableLookupAndDuplicates) {
  Registry registry;
  auto factory = [] { return std::unique_ptr<Env>(new CounterEnv()); };
  ASSERT_TRUE(registry.Add({"counter-v0", "counter", "Cost", "Delta", "", "", factory}).ok());
  EXPECT_EQ(registry.Add({"counter-v0", "counter", "", "", "", "", factory}).code(),
            StatusCode::kInvalidArgument);
  auto env = registry.Make("counter-v0");
  ASSERT_TRUE(env.ok());
  EXPECT_EQ((*env)->Spec().family, "counter");
  EXPECT_EQ(registry.Make("nope").status().code(), StatusCode::kNotFound);
  // Each registered id builds an env whose spec names the family the table says.
  for (const EnvEntry& entry : registry.entries()) {
    EXPECT_EQ(entry.factory()->Spec().family, entry.family);
  }
}

}  // namespace
}  // namespace compiler_gym
