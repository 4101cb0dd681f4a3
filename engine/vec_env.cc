// VecEnv's implementation: one slot per env stepped as oneTBB tasks (sync steps in an arena the
// caller joins, async ones in an arena of workers only), slab sets reused once no batch holds
// them, and the memory check that refuses a make_vec that would not fit.
#include "engine/vec_env.h"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "engine/memory.h"

namespace compiler_gym {

namespace {

// From this many envs up, make_vec measures what the first ones take before it makes (or
// starts the first episodes of) the rest, and refuses what would not fit in memory.
constexpr int64_t kMemoryCheckMinEnvs = 256;

// How many of `n` envs are measured: enough that the per-env figure is not noise.
int64_t MemorySampleSize(int64_t n) { return std::min(n, std::max<int64_t>(64, n / 32)); }

// SplitMix64: an env's seed to its generator's state, so that neighbouring seeds (s and s + 1,
// as gymnasium numbers a batch's envs) give unrelated streams.
uint64_t MixSeed(uint64_t seed) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// What one env produced in its last step or reset.
struct Row {
  std::vector<Observation> observations;
  std::vector<Observation> final_observations;
  std::vector<double> rewards;
  bool terminated = false;
  bool truncated = false;
  bool no_effect = true;
  bool is_reset = false;
  bool has_final = false;
  int64_t elapsed = 0;
  int64_t episode = 0;
  Status error;
};

struct Slot {
  std::unique_ptr<Env> env;
  std::mt19937_64 rng;
  int64_t episode = -1;
  int64_t elapsed = 0;
  bool needs_reset = true;
  bool in_flight = false;
  Row row;
};

// TBB caps its workers at cores - 1 unless told otherwise, which would leave an async arena of
// num_threads slots with too few (on one core, none) workers to run what send() queues. This
// raises the process-wide cap to the largest num_threads asked for; it never lowers it.
void EnsureWorkerThreads(int num_threads) {
  static std::mutex mu;
  static std::unique_ptr<oneapi::tbb::global_control> control;
  static size_t current = 0;
  std::lock_guard<std::mutex> lock(mu);
  const size_t wanted = static_cast<size_t>(num_threads) + 1;  // + the calling thread
  if (wanted <= current) return;
  auto next = std::make_unique<oneapi::tbb::global_control>(
      oneapi::tbb::global_control::max_allowed_parallelism,
      std::max(wanted, static_cast<size_t>(std::thread::hardware_concurrency())));
  control = std::move(next);
  current = wanted;
}

}  // namespace

StepCosts::StepCosts() = default;

double StepCosts::Expected(int key) const {
  const size_t i = static_cast<size_t>(key) + 1;  // the reset's key, -1, first
  if (i < seconds_.size() && seconds_[i] >= 0) return seconds_[i];
  return observed_ > 0 ? total_ / static_cast<double>(observed_) : 0;
}

void StepCosts::Add(int key, double seconds) {
  const size_t i = static_cast<size_t>(key) + 1;
  if (i >= seconds_.size()) seconds_.resize(i + 1, -1);
  // A moving average: a program's module, and so an action's cost, changes along episodes.
  seconds_[i] = seconds_[i] >= 0 ? 0.8 * seconds_[i] + 0.2 * seconds : seconds;
  total_ += seconds;
  ++observed_;
}

std::vector<int> StepCosts::LongestFirst(std::span<const int> keys) const {
  std::vector<double> expected(keys.size());
  for (size_t j = 0; j < keys.size(); ++j) expected[j] = Expected(keys[j]);
  std::vector<int> order(keys.size());
  for (size_t j = 0; j < order.size(); ++j) order[j] = static_cast<int>(j);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return expected[a] > expected[b]; });
  return order;
}

struct VecEnv::Impl {
  VecEnvConfig config;
  BenchmarkSampler sampler;
  std::vector<Slot> slots;
  const EnvSpec* spec = nullptr;
  std::vector<int> observation_indices;
  std::vector<int> reward_indices;
  std::vector<SpaceSpec> observation_specs;
  // Sync steps run in `arena`, where the calling thread works too (one slot is kept for it).
  // Async steps run in `async_arena`, whose slots are all for workers: nobody waits in it while
  // send()'s tasks run.
  std::unique_ptr<oneapi::tbb::task_arena> arena;
  std::unique_ptr<oneapi::tbb::task_arena> async_arena;
  oneapi::tbb::task_group async_tasks;  // runs inside async_arena

  // Async bookkeeping.
  std::mutex mu;
  std::condition_variable cv;
  std::deque<int> finished;
  int in_flight = 0;

  // Slab sets handed out in batches; reused once no batch holds them.
  std::vector<std::shared_ptr<SlabSet>> slab_pool;

  // What sync steps took, by action, to start the longest first (see StepCosts).
  StepCosts step_costs;

  // --- per-env work (runs on the arena's workers) ---------------------------------------

  void Observe(Slot& slot, Row& row, std::vector<Observation>& out) {
    out.assign(observation_indices.size(), Observation{});
    for (size_t k = 0; k < observation_indices.size() && row.error.ok(); ++k) {
      StatusOr<Observation> value = slot.env->Observe(observation_indices[k]);
      if (!value.ok()) {
        row.error = value.status();
        row.terminated = true;
      } else {
        out[k] = std::move(value).value();
      }
    }
  }

  void ResetSlot(int id, Row& row) {
    Slot& slot = slots[id];
    ++slot.episode;
    row.episode = slot.episode;
    Status status = slot.env->Reset(sampler(id, slot.episode, slot.rng));
    if (!status.ok()) {
      row.error = status;
      row.terminated = true;
      slot.needs_reset = true;  // the sampler may pick a loadable benchmark next time
      return;
    }
    slot.needs_reset = false;
    slot.elapsed = 0;
    row.is_reset = true;
    row.elapsed = 0;
    Observe(slot, row, row.observations);
    // Computing each reward once fixes its starting point at the episode's first state.
    for (int r : reward_indices) {
      if (!row.error.ok()) break;
      StatusOr<double> reward = slot.env->Reward(r);
      if (!reward.ok()) {
        row.error = reward.status();
        row.terminated = true;
      }
    }
    if (!row.error.ok()) slot.needs_reset = true;
  }

  // Lets the env set its step going (see Env::StartStep) before any thread waits for one.
  void StartSlot(int id, std::span<const int> actions) {
    Slot& slot = slots[id];
    if (slot.needs_reset) return;
    try {
      slot.env->StartStep(actions);
    } catch (...) {
      // StepSlot meets the same trouble again and reports it on the env's row.
    }
  }

  void StepSlot(int id, std::span<const int> actions) {
    Slot& slot = slots[id];
    Row& row = slot.row;
    row = Row{};
    row.rewards.assign(reward_indices.size(), 0.0);
    try {
      if (slot.needs_reset) {
        ResetSlot(id, row);
        return;
      }
      row.episode = slot.episode;
      StatusOr<Transition> t =
          slot.env->StepAndObserve(actions, {.observations = observation_indices,
                                             .rewards = reward_indices,
                                             .every_error_ends_episode = true});
      ++slot.elapsed;
      row.elapsed = slot.elapsed;
      if (!t.ok()) {  // only a wrong request of the engine's own (it checked the spaces)
        row.error = t.status();
        row.terminated = true;
      } else {
        row.no_effect = t->action_had_no_effect;
        row.terminated = t->done;
        row.error = t->error;
        row.observations = std::move(t->observations);
        row.rewards = std::move(t->rewards);
      }
      if (!row.terminated && config.max_episode_steps > 0 &&
          slot.elapsed >= config.max_episode_steps) {
        row.truncated = true;
      }
      if (row.terminated || row.truncated) {
        slot.needs_reset = true;
        if (config.autoreset == AutoReset::kSameStep) {
          row.final_observations = std::move(row.observations);
          row.has_final = true;
          Row fresh;
          ResetSlot(id, fresh);
          row.observations = std::move(fresh.observations);
          row.is_reset = fresh.is_reset;
          if (!fresh.error.ok() && row.error.ok()) row.error = fresh.error;
        }
      }
    } catch (const std::exception& e) {
      row = Row{};
      row.rewards.assign(reward_indices.size(), 0.0);
      row.error = Internal(std::string("exception in environment: ") + e.what());
      row.terminated = true;
      slot.needs_reset = true;
    } catch (...) {
      row = Row{};
      row.rewards.assign(reward_indices.size(), 0.0);
      row.error = Internal("unknown exception in environment");
      row.terminated = true;
      slot.needs_reset = true;
    }
  }

  // --- batches ---------------------------------------------------------------------------

  std::shared_ptr<SlabSet> AcquireSlabs(int64_t rows) {
    for (auto& slabs : slab_pool) {
      // Only the pool holds it: no batch (and so no tensor) can see what we write.
      if (slabs.use_count() == 1 && slabs->size() == observation_specs.size() &&
          (slabs->size() == 0 || slabs->slab(0).rows() == rows)) {
        return slabs;
      }
    }
    auto slabs = std::make_shared<SlabSet>(observation_specs, rows, config.slab_allocator);
    if (slab_pool.size() < 8) slab_pool.push_back(slabs);
    return slabs;
  }

  BatchPtr MakeBatch(const std::vector<int>& ids) {
    auto batch = std::make_shared<Batch>();
    const size_t n = ids.size();
    const size_t r = reward_indices.size();
    batch->env_ids.assign(ids.begin(), ids.end());
    batch->rewards.resize(n * r);
    batch->terminated.resize(n);
    batch->truncated.resize(n);
    batch->action_had_no_effect.resize(n);
    batch->elapsed_steps.resize(n);
    batch->episode.resize(n);
    batch->is_reset.resize(n);
    batch->errors.resize(n);
    batch->slabs = AcquireSlabs(static_cast<int64_t>(n));
    bool any_final = false;
    for (int id : ids) any_final |= slots[id].row.has_final;
    if (any_final) {
      batch->final_slabs = std::make_shared<SlabSet>(observation_specs, n, config.slab_allocator);
    }
    auto fill = [&](size_t j) {
      const Row& row = slots[ids[j]].row;
      for (size_t k = 0; k < r; ++k)
        batch->rewards[j * r + k] = row.rewards.empty() ? 0 : row.rewards[k];
      batch->terminated[j] = row.terminated;
      batch->truncated[j] = row.truncated;
      batch->action_had_no_effect[j] = row.no_effect;
      batch->elapsed_steps[j] = row.elapsed;
      batch->episode[j] = row.episode;
      batch->is_reset[j] = row.is_reset;
      batch->errors[j] = row.error;
      for (size_t k = 0; k < observation_specs.size(); ++k) {
        Slab& slab = batch->slabs->slab(k);
        if (k >= row.observations.size() ||
            std::holds_alternative<std::monostate>(row.observations[k])) {
          slab.Clear(static_cast<int64_t>(j));
        } else if (Status written = slab.Write(static_cast<int64_t>(j), row.observations[k]);
                   !written.ok()) {
          // A family's observation that does not fit its own space (a bug): reported in the
          // row rather than read as the space's default.
          slab.Clear(static_cast<int64_t>(j));
          if (batch->errors[j].ok()) batch->errors[j] = Internal(written.message());
        }
        if (batch->final_slabs) {
          Slab& final_slab = batch->final_slabs->slab(k);
          if (row.has_final && k < row.final_observations.size() &&
              final_slab.Write(static_cast<int64_t>(j), row.final_observations[k]).ok()) {
            continue;
          }
          final_slab.Clear(static_cast<int64_t>(j));
        }
      }
    };
    if (n >= 256) {
      arena->execute([&] { oneapi::tbb::parallel_for(size_t{0}, n, fill); });
    } else {
      for (size_t j = 0; j < n; ++j) fill(j);
    }
    return batch;
  }

  void WaitForAsync() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [this] { return in_flight == 0; });
  }
};

StatusOr<std::unique_ptr<VecEnv>> VecEnv::Create(EnvFactory factory, BenchmarkSampler sampler,
                                                 VecEnvConfig config) {
  if (config.num_envs <= 0) return InvalidArgument("num_envs must be positive");
  // 0 asks for the default; a negative count is a mistake, not a default.
  if (config.batch_size < 0) return InvalidArgument("batch_size must be >= 0 (0 = num_envs)");
  if (config.num_threads < 0) return InvalidArgument("num_threads must be >= 0 (0 = every core)");
  if (config.max_episode_steps < 0) {
    return InvalidArgument("max_episode_steps must be >= 0 (0 = no limit)");
  }
  if (config.batch_size == 0) config.batch_size = config.num_envs;
  if (config.batch_size > config.num_envs) return InvalidArgument("batch_size > num_envs");
  if (config.actions_per_step <= 0) return InvalidArgument("actions_per_step must be positive");
  if (config.num_threads == 0) {
    config.num_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  if (!sampler) return InvalidArgument("a benchmark sampler is required");
  auto impl = std::make_unique<Impl>();
  impl->sampler = std::move(sampler);
  RETURN_IF_ERROR(
      CheckProjectedMemory(sizeof(Slot), config.num_envs, AvailableMemoryBytes(), "environments"));
  impl->slots.resize(config.num_envs);
  const int64_t sample_size =
      config.num_envs >= kMemoryCheckMinEnvs ? MemorySampleSize(config.num_envs) : -1;
  // Measured only where it is checked: a small make_vec reads no /proc files.
  std::optional<MemorySample> sample;
  if (sample_size >= 0) sample.emplace();
  for (int i = 0; i < config.num_envs; ++i) {
    if (i == sample_size) {
      RETURN_IF_ERROR(sample->CheckFits(i, config.num_envs - i, "environments"));
    }
    ASSIGN_OR_RETURN(impl->slots[i].env, factory());
    impl->slots[i].rng.seed(MixSeed(config.seed + static_cast<uint64_t>(i)));
  }
  impl->spec = &impl->slots[0].env->Spec();
  for (const std::string& name : config.observation_spaces) {
    const int index = impl->spec->ObservationIndex(name);
    if (index < 0) return InvalidArgument("unknown observation space: " + name);
    impl->observation_indices.push_back(index);
    impl->observation_specs.push_back(impl->spec->observation_spaces[index]);
  }
  for (const std::string& name : config.reward_spaces) {
    const int index = impl->spec->RewardIndex(name);
    if (index < 0) return InvalidArgument("unknown reward space: " + name);
    impl->reward_indices.push_back(index);
  }
  EnsureWorkerThreads(config.num_threads);
  impl->arena = std::make_unique<oneapi::tbb::task_arena>(config.num_threads,
                                                          /*reserved_for_masters=*/1);
  impl->async_arena = std::make_unique<oneapi::tbb::task_arena>(config.num_threads,
                                                                /*reserved_for_masters=*/0);
  impl->config = std::move(config);
  return std::unique_ptr<VecEnv>(new VecEnv(std::move(impl)));
}

VecEnv::VecEnv(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

VecEnv::~VecEnv() {
  impl_->WaitForAsync();
  impl_->async_arena->execute([&] { impl_->async_tasks.wait(); });
}

const VecEnvConfig& VecEnv::config() const { return impl_->config; }
const EnvSpec& VecEnv::spec() const { return *impl_->spec; }
Env& VecEnv::env(int env_id) { return *impl_->slots.at(env_id).env; }

StatusOr<BatchPtr> VecEnv::Reset(std::span<const uint8_t> mask,
                                 std::span<const std::optional<uint64_t>> seeds) {
  Impl& s = *impl_;
  const int n = s.config.num_envs;
  if (!mask.empty() && static_cast<int>(mask.size()) != n) {
    return InvalidArgument("reset mask has " + std::to_string(mask.size()) + " entries, expected " +
                           std::to_string(n));
  }
  if (!seeds.empty() && static_cast<int>(seeds.size()) != n) {
    return InvalidArgument("reset has " + std::to_string(seeds.size()) + " seeds, expected " +
                           std::to_string(n) + " (one per env)");
  }
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.in_flight > 0 || !s.finished.empty()) {
      return FailedPrecondition("reset() while async steps are outstanding; recv() them first");
    }
  }
  std::vector<int> ids;
  for (int i = 0; i < n; ++i) {
    if (mask.empty() || mask[i]) {
      ids.push_back(i);
      if (!seeds.empty() && seeds[i]) s.slots[i].rng.seed(MixSeed(*seeds[i]));
    } else {
      // Its last row, as an observation only: nothing happened to it in this call.
      Row& row = s.slots[i].row;
      row.rewards.assign(s.reward_indices.size(), 0.0);
      row.terminated = row.truncated = row.is_reset = row.has_final = false;
      row.no_effect = true;
      row.error = Status::Ok();
      row.final_observations.clear();
    }
  }
  auto reset = [&](size_t begin, size_t end) {
    s.arena->execute([&] {
      oneapi::tbb::parallel_for(begin, end, [&](size_t j) {
        Slot& slot = s.slots[ids[j]];
        slot.needs_reset = true;
        s.StepSlot(ids[j], {});
      });
    });
  };
  const int64_t first_episodes =
      std::count_if(ids.begin(), ids.end(), [&](int id) { return s.slots[id].episode < 0; });
  if (first_episodes >= kMemoryCheckMinEnvs) {
    // Many envs' first episodes (a program each): one alone first, so that what all share
    // (the benchmark's cache) is not counted per env, then a sample, measured; the rest only
    // if it fits.
    reset(0, 1);
    const size_t sampled = 1 + MemorySampleSize(static_cast<int64_t>(ids.size()) - 1);
    MemorySample sample;
    reset(1, sampled);
    RETURN_IF_ERROR(sample.CheckFits(static_cast<int64_t>(sampled) - 1, ids.size() - sampled,
                                     "environments' first episodes"));
    reset(sampled, ids.size());
  } else {
    reset(0, ids.size());
  }
  std::vector<int> all(n);
  for (int i = 0; i < n; ++i) all[i] = i;
  return s.MakeBatch(all);
}

StatusOr<BatchPtr> VecEnv::Step(std::span<const int> actions) {
  Impl& s = *impl_;
  const int n = s.config.num_envs;
  const int k = s.config.actions_per_step;
  if (static_cast<int64_t>(actions.size()) != static_cast<int64_t>(n) * k) {
    return InvalidArgument("step() needs " + std::to_string(n * k) + " actions, got " +
                           std::to_string(actions.size()));
  }
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.in_flight > 0 || !s.finished.empty()) {
      return FailedPrecondition("step() while async steps are outstanding; recv() them first");
    }
  }
  for (int i = 0; i < n; ++i) s.StartSlot(i, actions.subspan(i * k, k));
  // Longest expected first, from one queue: the step ends with its slowest thread, and a long
  // step taken last would leave the others idle (benchmarks/vec_step_tail.py).
  std::vector<int> keys(n);
  for (int i = 0; i < n; ++i) {
    // Out of range (an error the env reports): all under one key, so the table stays small.
    keys[i] = s.slots[i].needs_reset ? -1 : std::clamp(actions[i * k], 0, StepCosts::kMaxKey);
  }
  const std::vector<int> order = s.step_costs.LongestFirst(keys);
  std::vector<double> seconds(n);
  std::atomic<int> next{0};
  const int tasks = std::min(n, s.arena->max_concurrency());
  s.arena->execute([&] {
    oneapi::tbb::parallel_for(
        0, tasks,
        [&](int) {
          for (int j = next++; j < n; j = next++) {
            const int i = order[j];
            const auto start = std::chrono::steady_clock::now();
            s.StepSlot(i, actions.subspan(i * k, k));
            seconds[i] =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          }
        },
        oneapi::tbb::simple_partitioner{});
  });
  for (int i = 0; i < n; ++i) s.step_costs.Add(keys[i], seconds[i]);
  std::vector<int> ids(n);
  for (int i = 0; i < n; ++i) ids[i] = i;
  return s.MakeBatch(ids);
}

StatusOr<std::vector<std::vector<TryOutcome>>> VecEnv::TryActions(
    std::span<const std::vector<std::vector<int>>> candidates, int reward_index,
    int observation_index) {
  Impl& s = *impl_;
  const int n = s.config.num_envs;
  if (static_cast<int>(candidates.size()) != n) {
    return InvalidArgument("try_actions() needs candidates for " + std::to_string(n) +
                           " envs, got " + std::to_string(candidates.size()));
  }
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.in_flight > 0 || !s.finished.empty()) {
      return FailedPrecondition(
          "try_actions() while async steps are outstanding; recv() them first");
    }
  }
  std::vector<std::vector<TryOutcome>> out(n);
  std::vector<Status> errors(n);
  // Nested: each env's candidates spread over the same arena's threads.
  s.arena->execute([&] {
    oneapi::tbb::parallel_for(0, n, [&](int i) {
      if (candidates[i].empty()) return;
      auto tried = s.slots[i].env->TryActions(candidates[i], reward_index, observation_index);
      if (tried.ok()) {
        out[i] = std::move(*tried);
      } else {
        errors[i] = tried.status();
      }
    });
  });
  for (int i = 0; i < n; ++i) {
    if (!errors[i].ok()) {
      return Status(errors[i].code(), "env " + std::to_string(i) + ": " + errors[i].message());
    }
  }
  return out;
}

Status VecEnv::Send(std::span<const int> actions, std::span<const int> env_ids) {
  Impl& s = *impl_;
  const int k = s.config.actions_per_step;
  if (actions.size() != env_ids.size() * k) {
    return InvalidArgument("send() needs " + std::to_string(env_ids.size() * k) + " actions, got " +
                           std::to_string(actions.size()));
  }
  {
    std::lock_guard<std::mutex> lock(s.mu);
    for (size_t j = 0; j < env_ids.size(); ++j) {
      const int id = env_ids[j];
      if (id < 0 || id >= s.config.num_envs) return OutOfRange("env id " + std::to_string(id));
      if (s.slots[id].in_flight) {
        return InvalidArgument("env " + std::to_string(id) + " is already in flight");
      }
      for (size_t m = 0; m < j; ++m) {
        if (env_ids[m] == id) return InvalidArgument("env " + std::to_string(id) + " sent twice");
      }
    }
    for (int id : env_ids) s.slots[id].in_flight = true;
    s.in_flight += static_cast<int>(env_ids.size());
  }
  for (size_t j = 0; j < env_ids.size(); ++j) s.StartSlot(env_ids[j], actions.subspan(j * k, k));
  // One entry into the arena for the whole send; one task per env.
  s.async_arena->execute([&] {
    for (size_t j = 0; j < env_ids.size(); ++j) {
      const int id = env_ids[j];
      std::vector<int> own(actions.begin() + j * k, actions.begin() + (j + 1) * k);
      s.async_tasks.run([&s, id, own = std::move(own)] {
        s.StepSlot(id, own);
        std::lock_guard<std::mutex> lock(s.mu);
        s.finished.push_back(id);
        --s.in_flight;
        // Wake the receiver only when a batch may be complete, not once per env.
        if (s.finished.size() >= static_cast<size_t>(s.config.batch_size) || s.in_flight == 0) {
          s.cv.notify_all();
        }
      });
    }
  });
  return Status::Ok();
}

StatusOr<BatchPtr> VecEnv::Recv(std::optional<std::chrono::milliseconds> timeout) {
  Impl& s = *impl_;
  std::vector<int> ids;
  {
    std::unique_lock<std::mutex> lock(s.mu);
    if (s.in_flight == 0 && s.finished.empty()) {
      return FailedPrecondition("recv() with nothing sent");
    }
    auto ready = [&] {
      const size_t want = std::min<size_t>(s.config.batch_size, s.finished.size() + s.in_flight);
      return s.finished.size() >= want;
    };
    if (timeout) {
      if (!s.cv.wait_for(lock, *timeout, ready)) {
        return DeadlineExceeded("recv() timed out with " + std::to_string(s.finished.size()) +
                                " of " + std::to_string(s.config.batch_size) + " envs ready");
      }
    } else {
      s.cv.wait(lock, ready);
    }
    const size_t take = std::min<size_t>(s.config.batch_size, s.finished.size());
    for (size_t j = 0; j < take; ++j) {
      ids.push_back(s.finished.front());
      s.finished.pop_front();
      s.slots[ids.back()].in_flight = false;
    }
  }
  return s.MakeBatch(ids);
}

}  // namespace compiler_gym
