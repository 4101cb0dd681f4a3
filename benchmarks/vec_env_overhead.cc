// Engine overhead per env step: the vector engine stepping environments that do almost nothing
// (engine/test_envs.h's CounterEnv), so what is measured is queueing, the TBB dispatch, row
// bookkeeping and the slab writes. Run: build/py/benchmarks/vec_env_overhead
#include <chrono>
#include <cstdio>
#include <thread>

#include "engine/test_envs.h"
#include "engine/vec_env.h"

using namespace compiler_gym;

namespace {

double MicrosPerEnvStep(int num_envs, int threads, bool async, int steps) {
  VecEnvConfig config{.num_envs = num_envs,
                      .batch_size = async ? num_envs / 2 : 0,
                      .num_threads = threads,
                      .observation_spaces = {"Cost", "History"},
                      .reward_spaces = {"Delta"}};
  auto factory = []() -> StatusOr<std::unique_ptr<Env>> {
    return std::unique_ptr<Env>(std::make_unique<testing::CounterEnv>());
  };
  auto sampler = [](int, int64_t, std::mt19937_64&) {
    return Benchmark{.uri = "benchmark://counter/1000000"};
  };
  auto vec = std::move(VecEnv::Create(factory, sampler, config).value());
  (void)vec->Reset();
  std::vector<int> actions(num_envs, 0);
  std::vector<int> ids(num_envs);
  for (int i = 0; i < num_envs; ++i) ids[i] = i;
  const auto start = std::chrono::steady_clock::now();
  int64_t env_steps = 0;
  if (async) {
    (void)vec->Send(actions, ids);
    while (env_steps < static_cast<int64_t>(steps) * num_envs) {
      BatchPtr batch = vec->Recv().value();
      env_steps += batch->rows();
      std::vector<int> again(batch->env_ids.begin(), batch->env_ids.end());
      (void)vec->Send(std::vector<int>(again.size(), 0), again);
    }
    while (vec->Recv(std::chrono::milliseconds(1000)).ok()) {
    }
  } else {
    for (int t = 0; t < steps; ++t) {
      BatchPtr batch = vec->Step(actions).value();
      env_steps += batch->rows();
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return seconds * 1e6 / static_cast<double>(env_steps);
}

}  // namespace

int main() {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::printf("engine overhead per env step (us), trivial envs, %d cores\n", cores);
  std::printf("%8s %8s %10s %10s\n", "num_envs", "threads", "sync", "async");
  for (int n : {16, 256, 4096}) {
    for (int threads : {1, cores}) {
      const int steps = n >= 4096 ? 50 : 500;
      std::printf("%8d %8d %10.3f %10.3f\n", n, threads, MicrosPerEnvStep(n, threads, false, steps),
                  MicrosPerEnvStep(n, threads, true, steps));
    }
  }
  return 0;
}
