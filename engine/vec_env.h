// VecEnv: N environments stepped in parallel on a oneTBB arena, with outputs in slabs.
//
// Sync: Step(actions) steps every env and returns rows in env order. Async (EnvPool semantics):
// Send(actions, env_ids) queues steps and Recv() returns the first batch_size envs to finish,
// with their env ids. An error inside one env (a bad benchmark, a crashing pass, an exception)
// ends only that env's episode: its row says so and the other envs go on.
//
//   VecEnvConfig config{.num_envs = 8, .num_threads = 2, .observation_spaces = {"Autophase"},
//                       .reward_spaces = {"IrInstructionCountOz"}};
//   ASSIGN_OR_RETURN(auto vec, VecEnv::Create(factory, sampler, config));
//   ASSIGN_OR_RETURN(BatchPtr batch, vec->Reset());
//   ASSIGN_OR_RETURN(batch, vec->Step(actions));   // batch->slabs->slab(0).data(): int64[8, 56]
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "engine/env.h"
#include "engine/slab.h"
#include "engine/status.h"

namespace compiler_gym {

// NEXT_STEP (gymnasium's default): the step after an episode ends resets that env and ignores
// its action. SAME_STEP: the env resets in the step that ended its episode; the row then holds
// the new episode's first observation and `final_*` hold the last one's.
enum class AutoReset { kNextStep, kSameStep };

struct VecEnvConfig {
  int num_envs = 1;
  int batch_size = 0;         // async Recv() batch; 0 = num_envs
  int num_threads = 0;        // 0 = every core
  int max_episode_steps = 0;  // truncation; 0 = none
  int actions_per_step = 1;   // k passes per step
  AutoReset autoreset = AutoReset::kNextStep;
  uint64_t seed = 0;  // env i's generator starts from seed + i (see VecEnv::Reset)
  std::vector<std::string> observation_spaces;
  std::vector<std::string> reward_spaces;
  SlabAllocator slab_allocator;  // fixed slabs' memory; empty = the heap
};

using EnvFactory = std::function<StatusOr<std::unique_ptr<Env>>()>;
// Chooses the benchmark of an env's next episode; `rng` is that env's own generator.
using BenchmarkSampler =
    std::function<Benchmark(int env_id, int64_t episode, std::mt19937_64& rng)>;

// The outputs of one Step/Reset/Recv. Rows follow env_ids. The slabs belong to the batch:
// the engine never writes into slabs that a live batch still holds.
struct Batch {
  std::vector<int32_t> env_ids;
  std::vector<double> rewards;      // [rows, reward spaces]
  std::vector<uint8_t> terminated;  // ended by an error (episodes never end by themselves)
  std::vector<uint8_t> truncated;   // reached max_episode_steps
  std::vector<uint8_t> action_had_no_effect;
  std::vector<int64_t> elapsed_steps;
  std::vector<int64_t> episode;          // per-env episode counter
  std::vector<uint8_t> is_reset;         // the row is the first of a new episode
  std::vector<Status> errors;            // OK unless the env failed
  std::shared_ptr<SlabSet> slabs;        // observations, one slab per space, rows = rows here
  std::shared_ptr<SlabSet> final_slabs;  // SAME_STEP only: last observation of ended episodes
  int64_t rows() const { return static_cast<int64_t>(env_ids.size()); }
};
using BatchPtr = std::shared_ptr<const Batch>;

// The expected wall time of a sync step's work for one env, by key (the step's first action;
// -1 for a reset), learned from the steps before: a moving average per key, and the mean of
// everything seen for a key not seen yet. VecEnv::Step starts its envs longest expected first,
// which ends a step sooner: a step waits for its slowest thread, and with envs taken in index
// order one long pass begun last leaves the other threads idle (on 16 threads with 1,024 LLVM
// envs x 12 steps, a bound of 0.857 parallel efficiency in index order, 0.953 in this order:
// benchmarks/vec_step_tail.py). The order changes no env's results.
class StepCosts {
 public:
  static constexpr int kMaxKey = 1 << 16;  // keys are -1 to kMaxKey

  StepCosts();
  double Expected(int key) const;
  void Add(int key, double seconds);
  // The positions of `keys`, longest expected first (ties in position order).
  std::vector<int> LongestFirst(std::span<const int> keys) const;

 private:
  std::vector<double> seconds_;  // by key + 1; negative: not seen yet
  double total_ = 0;
  int64_t observed_ = 0;
};

class VecEnv {
 public:
  static StatusOr<std::unique_ptr<VecEnv>> Create(EnvFactory factory, BenchmarkSampler sampler,
                                                  VecEnvConfig config);
  ~VecEnv();

  const VecEnvConfig& config() const;
  const EnvSpec& spec() const;

  // Resets the envs where mask[i] (all when empty), in parallel. Returns a row for every env,
  // in env order (gymnasium's partial reset): an env left out keeps the observations of its last
  // row, with is_reset false, zero rewards and no flags. seeds (empty, or one per env) reseeds
  // each reset env's benchmark generator first (std::nullopt: left as it is); VecEnvConfig::seed
  // s stands for the seeds s, s + 1, ..., s + num_envs - 1.
  StatusOr<BatchPtr> Reset(std::span<const uint8_t> mask = {},
                           std::span<const std::optional<uint64_t>> seeds = {});

  // Sync: num_envs * actions_per_step actions, env-major. Rows in env order.
  StatusOr<BatchPtr> Step(std::span<const int> actions);

  // Async: queue one step per listed env (actions_per_step actions each). An env already in
  // flight is kInvalidArgument.
  Status Send(std::span<const int> actions, std::span<const int> env_ids);
  // Waits for batch_size finished envs (fewer if fewer are in flight). kFailedPrecondition when
  // nothing is in flight; kDeadlineExceeded if the timeout passes first.
  StatusOr<BatchPtr> Recv(std::optional<std::chrono::milliseconds> timeout = std::nullopt);

  // Env::TryActions on each env at once, in this engine's arena: candidates[i] for env i (an
  // env with none is skipped). An env with no episode, or a wrong call, fails the whole call.
  StatusOr<std::vector<std::vector<TryOutcome>>> TryActions(
      std::span<const std::vector<std::vector<int>>> candidates, int reward_index,
      int observation_index = -1);

  // Direct access for tests and tools; not while steps are in flight.
  Env& env(int env_id);

  struct Impl;

 private:
  explicit VecEnv(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace compiler_gym
