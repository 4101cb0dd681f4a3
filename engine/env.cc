#include "engine/env.h"

#include <algorithm>
#include <atomic>

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

StatusOr<StepOutcome> Env::Step(std::span<const int> actions) {
  if (!in_episode_) return FailedPrecondition("step() called before reset()");
  if (episode_over_) return FailedPrecondition("the episode is over; call reset()");
  const int n = static_cast<int>(Spec().action_spaces[action_space_].action_names.size());
  for (int a : actions) {
    if (a < 0 || a >= n) {
      return OutOfRange("action " + std::to_string(a) + " is out of range [0, " +
                        std::to_string(n) + ")");
    }
  }
  ASSIGN_OR_RETURN(StepOutcome outcome, DoStep(actions));
  const size_t applied = outcome.actions_applied < 0
                             ? actions.size()
                             : std::min(actions.size(), size_t(outcome.actions_applied));
  actions_.insert(actions_.end(), actions.begin(), actions.begin() + applied);
  if (outcome.done) episode_over_ = true;
  return outcome;
}

namespace {
std::atomic<bool> background_threads_allowed{true};
}  // namespace

bool BackgroundThreadsAllowed() { return background_threads_allowed.load(); }
void DisallowBackgroundThreads() { background_threads_allowed.store(false); }

StatusOr<std::string> Env::Call(const std::string& method, const std::string&) {
  return Unimplemented("no method " + method + " in family " + Spec().family);
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
  if (!in_episode_) return FailedPrecondition("reward requested before reset()");
  const RewardSpec& spec = Spec().reward_spaces[reward_index];
  RewardState& state = rewards_[reward_index];
  ASSIGN_OR_RETURN(const double initial, ScalarObservation(spec.initial_observation));
  ASSIGN_OR_RETURN(const double cost, ScalarObservation(spec.cost_observation));
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
  if (!in_episode_) return FailedPrecondition("fork() called before reset()");
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

}  // namespace compiler_gym
