// Tests of ExampleEnv on lists written inline as benchmark data: swaps and their rewards, fork,
// and the benchmarks it refuses.
#include "envs/example/example_env.h"

#include <gtest/gtest.h>

namespace compiler_gym::example_env {
namespace {

Benchmark Program(const std::string& text) {
  return {.uri = "benchmark://example-v0/t", .data = text};
}

int64_t Int(Env& env, const char* name) {
  return std::get<int64_t>(env.Observe(env.Spec().ObservationIndex(name)).value());
}

TEST(ExampleEnv, SwapsSortAndRewardsCountInversions) {
  ExampleEnv env;
  ASSERT_TRUE(env.Reset(Program(" 3 1\n4 1 5 ")).ok());
  EXPECT_EQ(Int(env, "inversions"), 3);  // (3,1) (3,1) (4,1)
  const int reward = env.Spec().RewardIndex("inversions");
  const int actions[] = {0};  // 1 3 4 1 5
  StepOutcome out = env.Step(actions).value();
  EXPECT_FALSE(out.action_had_no_effect);
  EXPECT_DOUBLE_EQ(env.Reward(reward).value(), 1.0);
  const int past_end[] = {6};  // the list has 5 values: nothing to swap
  EXPECT_TRUE(env.Step(past_end).value().action_had_no_effect);
  EXPECT_DOUBLE_EQ(env.Reward(reward).value(), 0.0);
  EXPECT_EQ(std::get<Text>(env.Observe(env.Spec().ObservationIndex("program")).value()).data,
            "1 3 4 1 5");
  EXPECT_EQ(std::get<std::vector<int64_t>>(env.Observe(0).value()),
            (std::vector<int64_t>{1, 3, 4, 1, 5, 0, 0, 0}));
  // Replaying the swaps Call() proposes leaves nothing out of order.
  EXPECT_EQ(env.Call("sort_actions", "").value(), "[2,1]");
  const int sort[] = {2, 1};
  ASSERT_TRUE(env.Step(sort).ok());
  EXPECT_EQ(Int(env, "inversions"), 0);
  EXPECT_EQ(Int(env, "inversions_O0"), 3);
  EXPECT_DOUBLE_EQ(env.Reward(reward).value(), 2.0);
  EXPECT_EQ(env.Call("nope", "").status().code(), StatusCode::kUnimplemented);
}

TEST(ExampleEnv, ForkIsIndependent) {
  ExampleEnv env;
  ASSERT_TRUE(env.Reset(Program("2 1")).ok());
  auto fork = env.Fork().value();
  const int swap[] = {0};
  ASSERT_TRUE(fork->Step(swap).ok());
  EXPECT_EQ(Int(*fork, "inversions"), 0);
  EXPECT_EQ(Int(env, "inversions"), 1);
  EXPECT_EQ(fork->actions(), std::vector<int>{0});
}

TEST(ExampleEnv, RefusesWhatIsNotAShortListOfIntegers) {
  ExampleEnv env;
  for (const char* bad : {"", "1 2 x", "1.5", "1 2 3 4 5 6 7 8 9", "99999999999999999999"}) {
    EXPECT_EQ(env.Reset(Program(bad)).code(), StatusCode::kBenchmarkInit) << bad;
    EXPECT_FALSE(env.in_episode());
  }
  EXPECT_EQ(env.Observe(0).status().code(), StatusCode::kNoEpisode);
  const int out_of_range[] = {7};
  ASSERT_TRUE(env.Reset(Program("1")).ok());
  EXPECT_EQ(env.Step(out_of_range).status().code(), StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace compiler_gym::example_env
