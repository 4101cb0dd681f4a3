// Tests of the Env base class (episode rules, reward formulas, fork) with a tiny counter env.
#include "engine/env.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/registry.h"
#include "engine/test_envs.h"

namespace compiler_gym {
namespace {

using testing::CounterEnv;

Benchmark B(const std::string& uri) { return Benchmark{.uri = uri}; }

TEST(Env, ParseNumberParameterTakesWholeFiniteNumbersOnly) {
  EXPECT_EQ(ParseNumberParameter("t", "0.5").value(), 0.5);
  EXPECT_EQ(ParseNumberParameter("t", "1e-3").value(), 1e-3);
  EXPECT_EQ(ParseNumberParameter("t", "-2").value(), -2);
  for (const char* bad : {"", "x", "1s", " 1", "1 ", "inf", "nan", "0x10", "1e999"}) {
    const StatusOr<double> parsed = ParseNumberParameter("t", bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(parsed.status().message(), std::string("t must be a number, got \"") + bad + "\"");
  }
}

TEST(Env, StepBeforeResetIsAnError) {
  CounterEnv env;
  const int a[] = {0};
  EXPECT_EQ(env.Step(a).status().code(), StatusCode::kNoEpisode);
  EXPECT_EQ(env.Reward(0).status().code(), StatusCode::kNoEpisode);
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
  const int a3[] = {2};                                     // cost 8 -> 5
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

// The one step path: observations and rewards with the step, the rewards summed per episode.
TEST(Env, StepAndObserveReturnsObservationsAndSumsRewards) {
  CounterEnv env;
  ASSERT_TRUE(env.Reset(B("ok")).ok());
  const int observations[] = {0, 3}, rewards[] = {0, 1};
  const int a[] = {1, 0};  // cost 10 -> 8 -> 7
  StatusOr<Transition> t =
      env.StepAndObserve(a, {.observations = observations, .rewards = rewards});
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_FALSE(t->done);
  EXPECT_FALSE(t->action_had_no_effect);
  EXPECT_EQ(std::get<int64_t>(t->observations[0]), 7);
  EXPECT_EQ(std::get<std::vector<int64_t>>(t->observations[1]), (std::vector<int64_t>{10, 8, 7}));
  EXPECT_EQ(t->rewards, (std::vector<double>{3.0, 0.3}));
  const int b[] = {0};  // 7 -> 6
  ASSERT_TRUE(env.StepAndObserve(b, {.rewards = rewards}).ok());
  EXPECT_DOUBLE_EQ(env.EpisodeReward(0), 4.0);
  EXPECT_DOUBLE_EQ(env.EpisodeReward(1), 0.4);
  ASSERT_TRUE(env.Reward(0).ok());  // outside a step: not counted
  EXPECT_DOUBLE_EQ(env.EpisodeReward(0), 4.0);
  env.RestartEpisodeReward(0);
  EXPECT_DOUBLE_EQ(env.EpisodeReward(0), 0.0);
  EXPECT_DOUBLE_EQ(env.EpisodeReward(1), 0.4);
  ASSERT_TRUE(env.Reset(B("ok")).ok());
  EXPECT_DOUBLE_EQ(env.EpisodeReward(1), 0.0);
}

// The rule of an error that ends the episode: defaults, and minus what the episode earned.
TEST(Env, AnErrorEndsTheEpisodeUndoingItsRewards) {
  CounterEnv env;
  ASSERT_TRUE(env.Reset(B("crash-late")).ok());
  const int observations[] = {0, 3, 4}, rewards[] = {0};
  const int a[] = {2};  // 10 -> 7
  ASSERT_EQ(env.StepAndObserve(a, {.observations = observations, .rewards = rewards})->rewards,
            (std::vector<double>{3.0}));
  StatusOr<Transition> t =
      env.StepAndObserve(a, {.observations = observations, .rewards = rewards});
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->done);
  EXPECT_EQ(t->error.code(), StatusCode::kInternal);
  EXPECT_EQ(t->rewards, (std::vector<double>{-3.0}));
  EXPECT_EQ(std::get<int64_t>(t->observations[0]), 0);
  EXPECT_EQ(std::get<std::vector<int64_t>>(t->observations[1]), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(std::get<Text>(t->observations[2]).data, "");
  EXPECT_DOUBLE_EQ(env.EpisodeReward(0), 0.0);
  EXPECT_TRUE(env.episode_over());
  EXPECT_EQ(env.StepAndObserve(a, {}).status().code(), StatusCode::kNoEpisode);
}

// A mistake of the caller's changes nothing, unless every error must end the episode.
TEST(Env, StepAndObserveRefusesWrongRequestsBeforeAnyAction) {
  CounterEnv env;
  ASSERT_TRUE(env.Reset(B("ok")).ok());
  const int a[] = {0, 1}, unknown[] = {9}, rewards[] = {0};
  EXPECT_EQ(env.StepAndObserve(a, {.observations = unknown}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(env.StepAndObserve(a, {.rewards = unknown}).status().code(),
            StatusCode::kInvalidArgument);
  const int out_of_range[] = {0, 7};
  EXPECT_EQ(env.StepAndObserve(out_of_range, {}).status().code(), StatusCode::kOutOfRange);
  EXPECT_TRUE(env.actions().empty());
  StatusOr<Transition> t =
      env.StepAndObserve(out_of_range, {.rewards = rewards, .every_error_ends_episode = true});
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->done);
  EXPECT_EQ(t->error.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(t->rewards, (std::vector<double>{0.0}));
  EXPECT_TRUE(env.episode_over());
}

// Asked to stop between two actions: the rest are skipped, and the rewards count what ran.
TEST(Env, StepAndObserveStopsBetweenActionsWhenAsked) {
  CounterEnv env;
  ASSERT_TRUE(env.Reset(B("ok")).ok());
  const int a[] = {0, 1, 2}, observations[] = {0}, rewards[] = {0};
  int asked = 0;
  StatusOr<Transition> t = env.StepAndObserve(
      a, {.observations = observations, .rewards = rewards, .stop = [&] { return ++asked == 2; }});
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->stopped);
  EXPECT_EQ(asked, 2);
  EXPECT_EQ(env.actions(), (std::vector<int>{0, 1}));
  EXPECT_TRUE(t->observations.empty());
  EXPECT_EQ(t->rewards, (std::vector<double>{3.0}));  // 10 -> 9 -> 7
  EXPECT_DOUBLE_EQ(env.EpisodeReward(0), 3.0);
}

// A family without snapshots: each candidate runs on a fork, from the env's reward bookkeeping.
TEST(Env, TryActionsRewardsEachCandidateFromTheState) {
  CounterEnv env;
  ASSERT_TRUE(env.Reset(B("benchmark://counter/5")).ok());  // cost 15
  const int a[] = {0};
  ASSERT_TRUE(env.Step(a).ok());  // 14
  ASSERT_TRUE(env.Reward(0).ok());
  const std::vector<std::vector<int>> candidates = {{0}, {1, 2}, {}, {2, 2, 2}};
  auto tried = env.TryActions(candidates, /*Delta*/ 0, /*History*/ 3);
  ASSERT_TRUE(tried.ok());
  const double rewards[] = {1, 5, 0, 9};
  for (size_t i = 0; i < candidates.size(); ++i) {
    EXPECT_TRUE((*tried)[i].error.ok());
    EXPECT_DOUBLE_EQ((*tried)[i].reward, rewards[i]) << i;
  }
  EXPECT_EQ(std::get<std::vector<int64_t>>((*tried)[1].observation),
            (std::vector<int64_t>{14, 12, 9}));
  EXPECT_EQ(std::get<int64_t>(env.Observe(0).value()), 14);  // unchanged
  EXPECT_EQ(env.actions(), std::vector<int>{0});
  const std::vector<std::vector<int>> out_of_range = {{3}};
  EXPECT_EQ(env.TryActions(out_of_range, 0).status().code(), StatusCode::kOutOfRange);
  CounterEnv idle;
  EXPECT_EQ(idle.TryActions(candidates, 0).status().code(), StatusCode::kNoEpisode);
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
  // An id needs its family registered first.
  EXPECT_EQ(registry.Add({"counter-v0", "counter", "Cost", "Delta", "", "", factory}).code(),
            StatusCode::kFailedPrecondition);
  ASSERT_TRUE(registry
                  .AddFamily({.name = "counter",
                              .call = [](const std::string& method, const std::string& argument)
                                  -> StatusOr<std::string> { return method + ":" + argument; }})
                  .ok());
  EXPECT_EQ(registry.AddFamily({.name = "counter"}).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(registry.Add({"counter-v0", "counter", "Cost", "Delta", "", "", factory}).ok());
  EXPECT_EQ(registry.Add({"counter-v0", "counter", "", "", "", "", factory}).code(),
            StatusCode::kInvalidArgument);
  auto env = registry.Make("counter-v0");
  ASSERT_TRUE(env.ok());
  EXPECT_EQ((*env)->Spec().family, "counter");
  EXPECT_EQ(registry.Make("nope").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(registry.CallFamily("counter", "echo", "x").value(), "echo:x");
  EXPECT_EQ(registry.CallFamily("nope", "echo", "").status().code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(registry.AddFamily({.name = "bare"}).ok());
  EXPECT_EQ(registry.CallFamily("bare", "echo", "").status().code(), StatusCode::kUnimplemented);
  // Each registered id builds an env whose spec names the family the table says.
  for (const EnvEntry& entry : registry.entries()) {
    EXPECT_EQ(entry.factory()->Spec().family, entry.family);
  }
}

}  // namespace
}  // namespace compiler_gym

namespace compiler_gym {
namespace {

// The one definition of what each kind of space reads after an error.
TEST(Space, DefaultObservations) {
  using enum SpaceKind;
  EXPECT_EQ(std::get<int64_t>(DefaultObservation(
                {.kind = kScalar, .dtype = DType::kInt64, .scalar_default = -1})),
            -1);
  EXPECT_EQ(std::get<double>(DefaultObservation({.kind = kScalar, .dtype = DType::kFloat64})), 0);
  EXPECT_EQ(std::get<bool>(DefaultObservation({.kind = kScalar, .dtype = DType::kBool})), false);
  EXPECT_EQ(std::get<std::vector<float>>(
                DefaultObservation({.kind = kVector, .dtype = DType::kFloat32, .shape = {2, 3}})),
            std::vector<float>(6, 0.0f));
  EXPECT_TRUE(std::get<std::vector<double>>(
                  DefaultObservation({.kind = kVector, .dtype = DType::kFloat64, .shape = {-1}}))
                  .empty());
  EXPECT_TRUE(std::get<std::vector<int64_t>>(
                  DefaultObservation({.kind = kRagged, .dtype = DType::kInt64, .shape = {-1, 4}}))
                  .empty());
  EXPECT_EQ(std::get<Json>(DefaultObservation({.kind = kDict})).data, "{}");
  EXPECT_EQ(std::get<Text>(DefaultObservation({.kind = kText})).data, "");
  EXPECT_EQ(std::get<Bytes>(DefaultObservation({.kind = kBytes, .dtype = DType::kUint8})).data, "");
  EXPECT_EQ(std::get<GraphPtr>(DefaultObservation({.kind = kGraph}))->num_nodes(), 0);
}

TEST(Space, MedianOfRepeatedMeasurements) {
  EXPECT_EQ(Median({3.0}), 3.0);
  EXPECT_EQ(Median({5.0, 1.0, 3.0}), 3.0);
  EXPECT_EQ(Median({4.0, 1.0, 2.0, 3.0}), 2.5);
  EXPECT_TRUE(std::isnan(Median({})));
}

TEST(Space, VectorOfDoublesIsACostThroughItsMedian) {
  double out = 0;
  EXPECT_TRUE(ObservationAsDouble(Observation(std::vector<double>{0.3, 0.1, 0.2}), &out));
  EXPECT_EQ(out, 0.2);
  EXPECT_FALSE(ObservationAsDouble(Observation(std::vector<double>{}), &out));
  EXPECT_FALSE(ObservationAsDouble(Observation(std::vector<int64_t>{1}), &out));
  EXPECT_TRUE(ObservationAsDouble(Observation(int64_t{7}), &out));
  EXPECT_EQ(out, 7.0);
}

}  // namespace
}  // namespace compiler_gym
