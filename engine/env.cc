// Env's engine-side behaviour, shared by every family: episode bookkeeping, the one step
// path, rewards from costs, forks, and candidates evaluated in parallel (TryActions).
#include "engine/env.h"

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <mutex>

#include "engine/cpu_timer.h"

namespace compiler_gym {

namespace {
template <typename Rows>
int IndexByName(const Rows& rows, std::string_view name) {
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].name == name) return static_cast<int>(i);
  }
  return -1;
}
}  // namespace

int EnvSpec::ObservationIndex(std::string_view name) const {
  return IndexByName(observation_spaces, name);
}
int EnvSpec::RewardIndex(std::string_view name) const { return IndexByName(reward_spaces, name); }
int EnvSpec::ActionSpaceIndex(std::string_view name) const {
  return IndexByName(action_spaces, name);
}

Status Env::Reset(const Benchmark& benchmark) {
  in_episode_ = false;
  episode_over_ = false;
  RETURN_IF_ERROR(DoReset(benchmark));
  benchmark_uri_ = benchmark.uri;
  actions_.clear();
  rewards_.assign(Spec().reward_spaces.size(), RewardState{});
  in_episode_ = true;
  return Status::Ok();
}

bool EndsEpisode(StatusCode code) {
  switch (code) {
    case StatusCode::kAborted:
    case StatusCode::kCrash:
    case StatusCode::kDeadlineExceeded:
    case StatusCode::kResourceExhausted:
    case StatusCode::kInternal:
      return true;
    default:
      return false;
  }
}

int Env::NumActions(int action_space) const {
  return static_cast<int>(Spec().action_spaces[action_space].action_names.size());
}

Status Env::CheckActions(std::span<const int> actions) const {
  const int n = NumActions(action_space_);
  for (int a : actions) {
    if (a < 0 || a >= n) {
      // CompilerGym's words first.
      return OutOfRange("Out-of-range action: action " + std::to_string(a) +
                        " is out of range [0, " + std::to_string(n) + ")");
    }
  }
  return Status::Ok();
}

Status Env::CheckStep(std::span<const int> actions) const {
  if (!in_episode_) return NoEpisode("Must call reset() before step()");  // CompilerGym's words
  if (episode_over_) return NoEpisode("the episode is over; call reset()");
  return CheckActions(actions);
}

StatusOr<StepOutcome> Env::Step(std::span<const int> actions) {
  RETURN_IF_ERROR(CheckStep(actions));
  ASSIGN_OR_RETURN(StepOutcome outcome, DoStep(actions));
  const size_t applied = outcome.actions_applied < 0
                             ? actions.size()
                             : std::min(actions.size(), size_t(outcome.actions_applied));
  actions_.insert(actions_.end(), actions.begin(), actions.begin() + applied);
  if (outcome.done) episode_over_ = true;
  return outcome;
}

Status Env::CheckIndices(std::span<const int> observation_indices,
                         std::span<const int> reward_indices) const {
  for (int i : observation_indices) {
    if (i < 0 || i >= static_cast<int>(Spec().observation_spaces.size())) {
      return InvalidArgument("unknown observation space index " + std::to_string(i));
    }
  }
  for (int i : reward_indices) {
    if (i < 0 || i >= static_cast<int>(Spec().reward_spaces.size())) {
      return InvalidArgument("unknown reward space index " + std::to_string(i));
    }
  }
  return Status::Ok();
}

StatusOr<Transition> Env::StepAndObserve(std::span<const int> actions, const StepRequest& request) {
  Transition t;
  // An error of the compiler ends the episode; any other is the caller's to handle, unless
  // the caller has nobody to hand it to.
  auto ends = [&](const Status& error) {
    if (!request.every_error_ends_episode && !EndsEpisode(error.code())) return false;
    t.done = true;
    t.error = error;
    return true;
  };
  auto step = [&](std::span<const int> some) -> Status {
    StatusOr<StepOutcome> out = Step(some);
    if (!out.ok()) return out.status();
    t.action_had_no_effect &= out->action_had_no_effect;
    t.compute_seconds += out->compute_seconds;
    t.verify_seconds += out->verify_seconds;
    if (out->done) {
      t.done = true;
      t.error = out->error;
    }
    return Status::Ok();
  };
  Status checked = CheckIndices(request.observations, request.rewards);
  if (checked.ok() && request.stop && actions.size() > 1) {
    // Every action is checked before the first is applied: a bad one loses nothing.
    checked = CheckStep(actions);
    for (size_t i = 0; checked.ok() && i < actions.size() && !t.done; ++i) {
      if (i > 0 && request.stop()) {
        t.stopped = true;
        break;
      }
      checked = step(actions.subspan(i, 1));
    }
  } else if (checked.ok()) {
    checked = step(actions);
  }
  if (!checked.ok() && !ends(checked)) return checked;

  for (size_t k = 0; k < request.observations.size() && !t.done && !t.stopped; ++k) {
    StatusOr<Observation> value = Observe(request.observations[k]);
    if (!value.ok()) {
      if (!ends(value.status())) return value.status();
      break;
    }
    t.observations.push_back(std::move(value).value());
  }
  for (size_t k = 0; k < request.rewards.size() && !t.done; ++k) {
    StatusOr<double> reward = Reward(request.rewards[k]);
    if (!reward.ok()) {
      if (!ends(reward.status())) return reward.status();
      break;
    }
    t.rewards.push_back(*reward);
  }

  if (t.done) {
    // The rule of a step that ended the episode in an error.
    if (in_episode_) episode_over_ = true;
    t.observations.clear();
    for (int i : request.observations) {
      t.observations.push_back(DefaultObservation(Spec().observation_spaces[i]));
    }
    t.rewards.clear();
    for (int i : request.rewards) {
      const double earned = i < static_cast<int>(rewards_.size()) ? rewards_[i].episode_sum : 0;
      t.rewards.push_back(0.0 - earned);
      if (i < static_cast<int>(rewards_.size())) rewards_[i].episode_sum = 0;
    }
  } else {
    for (size_t k = 0; k < t.rewards.size(); ++k) {
      rewards_[request.rewards[k]].episode_sum += t.rewards[k];
    }
  }
  return t;
}

double Env::EpisodeReward(int reward_index) const {
  if (reward_index < 0 || reward_index >= static_cast<int>(rewards_.size())) return 0;
  return rewards_[reward_index].episode_sum;
}

void Env::RestartEpisodeReward(int reward_index) {
  if (reward_index >= 0 && reward_index < static_cast<int>(rewards_.size())) {
    rewards_[reward_index].episode_sum = 0;
  }
}

void Env::StartStep(std::span<const int> actions) {
  if (!CheckStep(actions).ok()) return;
  DoStartStep(actions);
}

namespace {
std::atomic<bool> background_threads_allowed{true};
}  // namespace

bool BackgroundThreadsAllowed() { return background_threads_allowed.load(); }
void DisallowBackgroundThreads() { background_threads_allowed.store(false); }

StatusOr<std::string> Env::Call(const std::string& method, const std::string&) {
  return Unimplemented("no method " + method + " in family " + Spec().family);
}

StatusOr<double> ParseNumberParameter(const std::string& name, const std::string& value) {
  double number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (value.empty() || error != std::errc() || end != value.data() + value.size() ||
      !std::isfinite(number)) {
    return InvalidArgument(name + " must be a number, got \"" + value + "\"");
  }
  return number;
}

Status Env::SetParameter(const std::string& name, const std::string&) {
  return InvalidArgument("unknown parameter " + name);
}

StatusOr<std::string> Env::GetParameter(const std::string& name) const {
  return InvalidArgument("unknown parameter " + name);
}

StatusOr<double> Env::ScalarObservation(const std::string& name) {
  const int index = Spec().ObservationIndex(name);
  if (index < 0) return Internal("reward refers to unknown observation " + name);
  ASSIGN_OR_RETURN(Observation value, Observe(index));
  double out = 0;
  if (!ObservationAsDouble(value, &out)) return Internal("observation " + name + " is not scalar");
  return out;
}

StatusOr<double> Env::Reward(int reward_index) {
  if (reward_index < 0 || reward_index >= static_cast<int>(Spec().reward_spaces.size())) {
    return InvalidArgument("unknown reward space index " + std::to_string(reward_index));
  }
  if (!in_episode_) return NotInEpisode("reward");
  const RewardSpec& spec = Spec().reward_spaces[reward_index];
  RewardState& state = rewards_[reward_index];
  double initial = 0;
  if (!spec.initial_observation.empty() || !spec.maximize) {
    ASSIGN_OR_RETURN(initial, ScalarObservation(spec.initial_observation));
    if (std::isnan(initial)) {  // an observation with no value here: no reward either
      return InvalidArgument("reward " + spec.name + " has no value for " + benchmark_uri_ +
                             ": its observation " + spec.initial_observation + " has none");
    }
  }
  ASSIGN_OR_RETURN(double cost, ScalarObservation(spec.cost_observation));
  if (spec.maximize) {
    initial = -initial;
    cost = -cost;
  }
  const double previous = state.previous_cost.value_or(initial);
  double reward = previous - cost;
  switch (spec.kind) {
    case RewardKind::kDelta:
      break;
    case RewardKind::kNormByInitial:
      // An empty program has C0 = 0: there is nothing to normalize by, so no reward either.
      reward = initial == 0 ? 0.0 : reward / initial;
      break;
    case RewardKind::kNormByBaseline: {
      ASSIGN_OR_RETURN(const double baseline, ScalarObservation(spec.baseline_observation));
      reward /= std::max(initial - baseline, 1.0);
      break;
    }
  }
  state.previous_cost = cost;
  return reward;
}

StatusOr<std::unique_ptr<Env>> Env::Fork() {
  if (!in_episode_) return NoEpisode("fork() called before reset()");
  ASSIGN_OR_RETURN(std::unique_ptr<Env> copy, DoFork());
  copy->action_space_ = action_space_;
  copy->in_episode_ = in_episode_;
  copy->episode_over_ = episode_over_;
  copy->benchmark_uri_ = benchmark_uri_;
  copy->actions_ = actions_;
  copy->rewards_ = rewards_;
  return copy;
}

Status Env::SetActionSpace(int action_space_index) {
  if (action_space_index < 0 ||
      action_space_index >= static_cast<int>(Spec().action_spaces.size())) {
    return InvalidArgument("unknown action space index " + std::to_string(action_space_index));
  }
  action_space_ = action_space_index;
  return Status::Ok();
}

StatusOr<std::unique_ptr<EnvSnapshot>> Env::DoSnapshot() {
  return Unimplemented("family " + Spec().family + " has no snapshots");
}

Status Env::DoRestore(const EnvSnapshot&, bool) {
  return Unimplemented("family " + Spec().family + " has no snapshots");
}

using Stopwatch = ThreadCpuTimer;

StatusOr<std::vector<TryOutcome>> Env::TryActions(std::span<const std::vector<int>> candidates,
                                                  int reward_index, int observation_index,
                                                  TryStats* stats) {
  if (!in_episode_) return NoEpisode("try_actions() called before reset()");
  if (episode_over_) return NoEpisode("the episode is over; call reset()");
  if (reward_index < 0 || reward_index >= static_cast<int>(Spec().reward_spaces.size())) {
    return InvalidArgument("unknown reward space index " + std::to_string(reward_index));
  }
  if (observation_index >= static_cast<int>(Spec().observation_spaces.size())) {
    return InvalidArgument("unknown observation space index " + std::to_string(observation_index));
  }
  for (const std::vector<int>& candidate : candidates) {
    RETURN_IF_ERROR(CheckActions(candidate));
  }
  std::vector<TryOutcome> out(candidates.size());
  if (candidates.empty()) return out;
  const size_t workers = std::min<size_t>(
      candidates.size(), static_cast<size_t>(tbb::this_task_arena::max_concurrency()));
  // Forks of this env are made one at a time: Fork() reads this env, which other threads
  // must not step meanwhile (nothing does: the caller waits).
  std::mutex fork_mu;
  auto fork = [&]() -> StatusOr<std::unique_ptr<Env>> {
    std::lock_guard<std::mutex> lock(fork_mu);
    return Fork();
  };
  std::vector<TryStats> worker_stats(workers);
  Stopwatch setup;
  std::vector<std::unique_ptr<Env>> scratch(workers);
  for (auto& env : scratch) {
    ASSIGN_OR_RETURN(env, fork());
  }
  worker_stats[0].setup_seconds = setup.Seconds();

  // Candidates go to whichever worker is free: their costs differ widely, and each result
  // depends only on its candidate, never on the worker.
  std::atomic<size_t> next{0};
  tbb::parallel_for(size_t{0}, workers, [&](size_t w) {
    TryStats& time = worker_stats[w];
    std::unique_ptr<Env>& env = scratch[w];
    Stopwatch snapshot_time;
    StatusOr<std::unique_ptr<EnvSnapshot>> snapshot = env->DoSnapshot();
    time.setup_seconds += snapshot_time.Seconds();
    const std::vector<int> actions = env->actions_;
    const std::vector<RewardState> rewards = env->rewards_;
    for (size_t i = next++; i < candidates.size(); i = next++) {
      ++time.candidates;
      std::unique_ptr<Env> own;  // a fork for this candidate, where there is no snapshot
      if (!snapshot.ok()) {
        Stopwatch fork_time;
        StatusOr<std::unique_ptr<Env>> copy = env->Fork();
        time.restore_seconds += fork_time.Seconds();
        if (!copy.ok()) {
          out[i].error = copy.status();
          continue;
        }
        own = std::move(*copy);
      }
      Env& target = own ? *own : *env;
      TryOutcome& result = out[i];
      Stopwatch step_time;
      StatusOr<StepOutcome> step = target.Step(candidates[i]);
      const double step_seconds = step_time.Seconds();
      if (step.ok()) {
        time.pass_seconds += step->compute_seconds;
        time.fingerprint_seconds += step->fingerprint_seconds;
        time.verify_seconds += step->verify_seconds - step->fingerprint_seconds;
        time.step_other_seconds += step_seconds - step->compute_seconds - step->verify_seconds;
      }
      const bool changed = !step.ok() || step->done || !step->action_had_no_effect;
      Stopwatch reward_time;
      if (!step.ok()) {
        result.error = step.status();
      } else if (step->done) {
        result.error = step->error;
      } else if (StatusOr<double> reward = target.Reward(reward_index); !reward.ok()) {
        result.error = reward.status();
      } else {
        result.reward = *reward;
        if (observation_index >= 0) {
          StatusOr<Observation> observation = target.Observe(observation_index);
          if (observation.ok()) {
            result.observation = std::move(*observation);
          } else {
            result.error = observation.status();
          }
        }
      }
      time.reward_seconds += reward_time.Seconds();
      if (own) continue;
      env->actions_ = actions;
      env->rewards_ = rewards;
      env->episode_over_ = false;
      Stopwatch restore_time;
      Status restored = env->DoRestore(**snapshot, changed);
      time.restore_seconds += restore_time.Seconds();
      if (!restored.ok()) {
        // The scratch env is lost: start again from a fresh fork, without snapshots.
        StatusOr<std::unique_ptr<Env>> copy = fork();
        if (!copy.ok()) {
          for (size_t j = next++; j < candidates.size(); j = next++) out[j].error = copy.status();
          return;
        }
        env = std::move(*copy);
        snapshot = restored;
      }
    }
  });
  if (stats != nullptr) {
    for (const TryStats& t : worker_stats) {
      stats->candidates += t.candidates;
      stats->setup_seconds += t.setup_seconds;
      stats->pass_seconds += t.pass_seconds;
      stats->fingerprint_seconds += t.fingerprint_seconds;
      stats->verify_seconds += t.verify_seconds;
      stats->step_other_seconds += t.step_other_seconds;
      stats->reward_seconds += t.reward_seconds;
      stats->restore_seconds += t.restore_seconds;
    }
  }
  return out;
}

}  // namespace compiler_gym
