// Tests of remote envs (engine/worker.h): CounterEnv served by the test worker executable
// (test_worker.cc), its faults contained, and remote envs inside a VecEnv.
#include "engine/worker.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>

#include "engine/test_envs.h"
#include "engine/vec_env.h"

namespace compiler_gym {
namespace {

const EnvSpec& CounterSpec() {
  static const testing::CounterEnv env;
  return env.Spec();
}

std::unique_ptr<Env> Remote(double timeout_seconds = 30, int64_t memory_mb = 0) {
  WorkerOptions options{.worker_path = CG_TEST_WORKER,
                        .env_id = "counter-v0",
                        .step_timeout_seconds = timeout_seconds,
                        .memory_limit_mb = memory_mb};
  auto env = MakeRemoteEnv(options, CounterSpec());
  EXPECT_TRUE(env.ok()) << env.status().ToString();
  return std::move(env).value();
}

// Makes counter envs in worker processes, as a vector engine's factory.
EnvFactory RemoteFactory(WorkerOptions options) {
  return [options]() { return MakeRemoteEnv(options, CounterSpec()); };
}

Benchmark Counter(int n) { return Benchmark{.uri = "benchmark://counter/" + std::to_string(n)}; }

int64_t Cost(Env& env) { return std::get<int64_t>(env.Observe(0).value()); }
std::string Trace(Env& env) { return std::get<Text>(env.Observe(4).value()).data; }

// No worker outlives its env: every child of this process has been reaped.
void ExpectNoChildren() {
  int status = 0;
  EXPECT_EQ(::waitpid(-1, &status, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(RemoteEnv, StepsObservesAndRewardsAsInProcess) {
  testing::CounterEnv local;
  auto remote = Remote();
  for (Env* env : {static_cast<Env*>(&local), remote.get()}) {
    ASSERT_TRUE(env->Reset(Counter(5)).ok());
    ASSERT_DOUBLE_EQ(env->Reward(0).value(), 0.0);
  }
  for (int action : {2, 0, 1}) {
    const int a[] = {action};
    auto want = local.Step(a);
    auto got = remote->Step(a);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->action_had_no_effect, want->action_had_no_effect);
    EXPECT_EQ(got->done, false);
    EXPECT_EQ(remote->Reward(0).value(), local.Reward(0).value());
    EXPECT_EQ(remote->Reward(2).value(), local.Reward(2).value());
  }
  EXPECT_EQ(Cost(*remote), 15 - 3 - 1 - 2);
  EXPECT_EQ(std::get<std::vector<int64_t>>(remote->Observe(3).value()),
            (std::vector<int64_t>{12, 11, 9}));
  EXPECT_EQ(Trace(*remote), "201");
  EXPECT_EQ(remote->actions(), (std::vector<int>{2, 0, 1}));
  // Errors from the family cross over with their codes.
  EXPECT_EQ(remote->Observe(99).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(remote->Reset(Benchmark{.uri = "bad"}).code(), StatusCode::kBenchmarkInit);
  EXPECT_EQ(remote->SetParameter("nope", "1").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(remote->Call("nope", "").status().code(), StatusCode::kUnimplemented);
  const int out_of_range[] = {3};
  ASSERT_TRUE(remote->Reset(Counter(1)).ok());
  EXPECT_EQ(remote->Step(out_of_range).status().code(), StatusCode::kOutOfRange);
  remote.reset();
  ExpectNoChildren();
}

TEST(RemoteEnv, ForkIsIndependentAndOutlivesTheOriginal) {
  auto env = Remote();
  ASSERT_TRUE(env->Reset(Counter(0)).ok());
  const int two[] = {2};
  const int zero[] = {0};
  ASSERT_TRUE(env->Step(two).ok());
  auto fork = env->Fork();
  ASSERT_TRUE(fork.ok()) << fork.status().ToString();
  auto& copy = *fork.value();
  EXPECT_EQ(copy.actions(), (std::vector<int>{2}));
  ASSERT_TRUE(copy.Step(zero).ok());
  EXPECT_EQ(Trace(copy), "20");
  EXPECT_EQ(Trace(*env), "2");
  // A fork of a fork, then the original goes: the forks are processes of their own.
  auto grandchild = copy.Fork();
  ASSERT_TRUE(grandchild.ok());
  env.reset();
  ASSERT_TRUE(copy.Step(two).ok());
  EXPECT_EQ(Trace(copy), "202");
  EXPECT_EQ(Trace(*grandchild.value()), "20");
  EXPECT_EQ(Cost(*grandchild.value()), 10 - 3 - 1);
  grandchild.value().reset();
  fork.value().reset();
  ExpectNoChildren();
}

struct Fault {
  const char* benchmark;
  StatusCode code;
  const char* message;
};

class RemoteEnvFault : public ::testing::TestWithParam<Fault> {};

TEST_P(RemoteEnvFault, EndsTheEpisodeWithItsTypeAndTheEnvGoesOn) {
  const Fault& fault = GetParam();
  // Only the hanging fault waits for the deadline; the others must not meet it even on a busy
  // machine (allocating 256 MiB takes a fraction of a second).
  const bool hang = std::string(fault.benchmark) == "hang";
  auto env = Remote(/*timeout_seconds=*/hang ? 1.5 : 60, /*memory_mb=*/256);
  ASSERT_TRUE(env->Reset(Benchmark{.uri = fault.benchmark}).ok());
  const int one[] = {1};
  auto out = env->Step(one);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->done);
  EXPECT_EQ(out->error.code(), fault.code) << out->error.ToString();
  EXPECT_NE(out->error.message().find(fault.message), std::string::npos) << out->error.ToString();
  EXPECT_TRUE(env->episode_over());
  EXPECT_EQ(env->Observe(0).status().code(), StatusCode::kNoEpisode);
  EXPECT_EQ(env->Fork().status().code(), StatusCode::kNoEpisode);
  // reset() starts a new worker, which steps exactly as a fresh env does.
  ASSERT_TRUE(env->Reset(Counter(3)).ok());
  ASSERT_TRUE(env->Step(one).ok());
  EXPECT_EQ(Cost(*env), 11);
  EXPECT_EQ(env->actions(), (std::vector<int>{1}));
  env.reset();
  ExpectNoChildren();
}

INSTANTIATE_TEST_SUITE_P(
    Faults, RemoteEnvFault,
    ::testing::Values(Fault{"segv", StatusCode::kCrash, "signal 11"},
                      Fault{"abort", StatusCode::kCrash, "signal 6"},
                      Fault{"hang", StatusCode::kDeadlineExceeded, "took longer than 1.5"},
                      Fault{"alloc", StatusCode::kResourceExhausted, "out of memory"},
                      // An error the family reports also retires the worker; the code is its own.
                      Fault{"crash", StatusCode::kInternal, "injected crash"}),
    [](const auto& info) { return std::string(info.param.benchmark); });

TEST(RemoteEnv, ParametersSurviveANewWorker) {
  auto env = Remote();
  EXPECT_EQ(env->GetParameter(kStepTimeoutParameter).value(), "30.000000");
  EXPECT_EQ(env->SetParameter(kStepTimeoutParameter, "0").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(env->SetParameter(kMemoryLimitParameter, "-1").code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(env->SetParameter(kStepTimeoutParameter, "1").ok());
  ASSERT_TRUE(env->Reset(Benchmark{.uri = "hang"}).ok());
  const int zero[] = {0};
  auto out = env->Step(zero);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->error.code(), StatusCode::kDeadlineExceeded);
  // The timeout still holds in the next worker.
  ASSERT_TRUE(env->Reset(Benchmark{.uri = "hang"}).ok());
  out = env->Step(zero);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->error.code(), StatusCode::kDeadlineExceeded);
  // A memory limit set while a worker starts up applies to it (not overwritten by the limit it
  // started with).
  auto fresh = Remote(/*timeout_seconds=*/30, /*memory_mb=*/0);
  ASSERT_TRUE(fresh->SetParameter(kMemoryLimitParameter, "256").ok());
  ASSERT_TRUE(fresh->Reset(Benchmark{.uri = "alloc"}).ok());
  out = fresh->Step(zero);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->error.code(), StatusCode::kResourceExhausted) << out->error.ToString();
}

TEST(RemoteEnv, WorkerThatCannotStartIsAnError) {
  WorkerOptions options{.worker_path = "/nonexistent/worker", .env_id = "counter-v0"};
  EXPECT_EQ(MakeRemoteEnv(options, CounterSpec()).status().code(), StatusCode::kNotFound);
  options = WorkerOptions{.worker_path = CG_TEST_WORKER, .env_id = "no-such-env-v0"};
  auto env = MakeRemoteEnv(options, CounterSpec());
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env.value()->Reset(Counter(0)).code(), StatusCode::kNotFound);
  env.value().reset();
  ExpectNoChildren();
}

// A batch with failing workers: the healthy rows are exactly those of an in-process batch.
TEST(RemoteEnv, VecEnvFaultsStayInTheirRows) {
  auto sampler = [](int env_id, int64_t episode, std::mt19937_64&) {
    const char* faults[] = {"", "segv", "hang", "alloc", "", "abort"};
    const bool faulty = episode == 0 && faults[env_id][0] != '\0';
    return faulty ? Benchmark{.uri = faults[env_id]} : Counter(env_id);
  };
  VecEnvConfig config{.num_envs = 6,
                      .num_threads = 3,
                      .observation_spaces = {"Cost", "Trace"},
                      .reward_spaces = {"Delta"}};
  auto remote = VecEnv::Create(RemoteFactory({.worker_path = CG_TEST_WORKER,
                                              .env_id = "counter-v0",
                                              .step_timeout_seconds = 5,
                                              .memory_limit_mb = 256}),
                               sampler, config);
  auto local = VecEnv::Create(
      []() -> StatusOr<std::unique_ptr<Env>> {
        return std::unique_ptr<Env>(std::make_unique<testing::CounterEnv>());
      },
      [](int env_id, int64_t, std::mt19937_64&) { return Counter(env_id); }, config);
  ASSERT_TRUE(remote.ok() && local.ok());
  ASSERT_TRUE((*remote)->Reset().ok());
  ASSERT_TRUE((*local)->Reset().ok());
  const std::vector<int> actions = {0, 1, 2, 0, 1, 2};
  auto r = (*remote)->Step(actions).value();
  auto l = (*local)->Step(actions).value();
  const StatusCode want[] = {StatusCode::kOk,
                             StatusCode::kCrash,
                             StatusCode::kDeadlineExceeded,
                             StatusCode::kResourceExhausted,
                             StatusCode::kOk,
                             StatusCode::kCrash};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(r->errors[i].code(), want[i]) << i << ": " << r->errors[i].ToString();
    if (want[i] == StatusCode::kOk) {
      EXPECT_EQ(static_cast<const int64_t*>(r->slabs->slab(0).data())[i],
                static_cast<const int64_t*>(l->slabs->slab(0).data())[i]);
      EXPECT_EQ(r->rewards[i], l->rewards[i]);
    }
  }
  // The next step resets the failed envs with new workers, which then step as fresh envs; the
  // healthy envs went on with their episodes.
  (*remote)->Step(actions).value();
  r = (*remote)->Step(actions).value();
  for (int i = 0; i < 6; ++i) {
    EXPECT_TRUE(r->errors[i].ok()) << i << ": " << r->errors[i].ToString();
    const int steps = want[i] == StatusCode::kOk ? 3 : 1;
    EXPECT_EQ(static_cast<const int64_t*>(r->slabs->slab(0).data())[i],
              10 + i - steps * (actions[i] + 1))
        << i;
  }
  remote->reset();
  ExpectNoChildren();
}

// The engine starts every env's step before any thread waits for one, so isolated envs run side
// by side however few threads the engine has: each of these two steps ends only once the other
// has begun, with one thread, in sync steps and in async ones.
TEST(RemoteEnv, VecEnvRunsWorkersSideBySideOnOneThread) {
  std::string dir = (std::filesystem::temp_directory_path() / "cg_rendezvous_XXXXXX").string();
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  const std::string a = dir + "/a", b = dir + "/b";
  auto sampler = [&](int env_id, int64_t, std::mt19937_64&) {
    return Benchmark{.uri = "rendezvous:" + (env_id == 0 ? a + ":" + b : b + ":" + a)};
  };
  VecEnvConfig config{.num_envs = 2, .num_threads = 1, .observation_spaces = {"Trace"}};
  auto vec = VecEnv::Create(RemoteFactory({.worker_path = CG_TEST_WORKER, .env_id = "counter-v0"}),
                            sampler, config);
  ASSERT_TRUE(vec.ok()) << vec.status().ToString();
  ASSERT_TRUE((*vec)->Reset().ok());
  const std::vector<int> actions = {1, 2};
  auto batch = (*vec)->Step(actions);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  for (int i = 0; i < 2; ++i)
    EXPECT_TRUE((*batch)->errors[i].ok()) << (*batch)->errors[i].ToString();
  const std::vector<int> ids = {0, 1};
  ASSERT_TRUE((*vec)->Send(actions, ids).ok());
  batch = (*vec)->Recv();
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ((*batch)->rows(), 2);
  for (int i = 0; i < 2; ++i)
    EXPECT_TRUE((*batch)->errors[i].ok()) << (*batch)->errors[i].ToString();
  EXPECT_EQ(Trace((*vec)->env(0)), "11");
  EXPECT_EQ(Trace((*vec)->env(1)), "22");
  vec->reset();
  std::filesystem::remove_all(dir);
  ExpectNoChildren();
}

TEST(RemoteEnv, AStartedStepMustBeTheNextCall) {
  auto env = Remote();
  ASSERT_TRUE(env->Reset(Counter(0)).ok());
  const int zero[] = {0}, one[] = {1}, out_of_range[] = {3};
  // A step that would be refused is not started: the step gets the refusal, the env goes on.
  env->StartStep(out_of_range);
  EXPECT_EQ(env->Step(out_of_range).status().code(), StatusCode::kOutOfRange);
  env->StartStep(one);
  ASSERT_TRUE(env->Step(one).ok());
  env->StartStep(one);
  ASSERT_TRUE(env->Step(one).ok());
  EXPECT_EQ(Trace(*env), "11");
  EXPECT_EQ(env->actions(), (std::vector<int>{1, 1}));
  // The worker ran a step the env has not taken: a different step, or any other call, finds it
  // a step ahead, and it is replaced at the next reset.
  env->StartStep(zero);
  auto out = env->Step(one);
  EXPECT_EQ(out.status().code(), StatusCode::kInternal) << out.status().ToString();
  EXPECT_EQ(env->Step(one).status().code(), StatusCode::kNoEpisode);
  ASSERT_TRUE(env->Reset(Counter(0)).ok());
  env->StartStep(zero);
  EXPECT_EQ(env->Observe(0).status().code(), StatusCode::kInternal);
  ASSERT_TRUE(env->Reset(Counter(2)).ok());
  ASSERT_TRUE(env->Step(zero).ok());
  EXPECT_EQ(Cost(*env), 11);
  EXPECT_EQ(env->actions(), (std::vector<int>{0}));
  env.reset();
  ExpectNoChildren();
}

}  // namespace
}  // namespace compiler_gym
