// Env: one compilation session, the interface every environment family implements.
//
// The single-env Python API and the vector engine are two faces of the same Env objects.
// An Env is used by one thread at a time; different Envs may run on different threads.
//
//   std::unique_ptr<Env> env = registry.Make("llvm-v0").value();
//   RETURN_IF_ERROR(env->Reset(benchmark));
//   const int autophase = env->Spec().ObservationIndex("Autophase");
//   const int oz = env->Spec().RewardIndex("IrInstructionCountOz");
//   ASSIGN_OR_RETURN(Transition t, env->StepAndObserve({{3}}, {.observations = {&autophase, 1},
//                                                          .rewards = {&oz, 1}}));
//   // t.observations[0], t.rewards[0]; t.done when an error ended the episode
//
// StepAndObserve is the one step path: the Python env and the vector engine both step through
// it, so the rule for an episode that ends in an error, the observations' defaults and the
// episode's reward sums live there only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/space.h"
#include "engine/status.h"

namespace compiler_gym {

// A program to compile, as handed over by the Python datasets layer (or a C++ user).
struct Benchmark {
  std::string uri;                 // cache key and identity, e.g. benchmark://builtin-v0/qsort
  std::vector<std::string> files;  // program files (.bc, .ll, .c, .cc, ...)
  std::string data;                // in-memory program, used when files is empty
  std::vector<std::string> compile_args;  // extra frontend flags for source files
  std::vector<std::string> link_args;     // extra linker flags (e.g. -lm) when buildable
  std::vector<std::string> run_args;      // arguments the built program runs with
  bool buildable = false;                 // can be linked into an executable
  bool runnable = false;                  // the executable runs and checks itself
  std::string expected_output;            // when set: what a correct run prints (compared trimmed)
  // Seconds a family may take to build the program from source (LLVM: each clang-19 run);
  // 0: the family's default. Not part of the benchmark's identity.
  double build_timeout_seconds = 0;
  // Costs of this program computed elsewhere from the same program (a Ray driver's baselines),
  // named as the family defines (LLVM: "Oz/IrInstructionCount"): used instead of computing
  // them again. Not part of the benchmark's identity.
  std::vector<std::pair<std::string, int64_t>> known_costs;
};

// The spaces of an environment family. Indices into these vectors are the space ids used by
// Observe() and Reward().
struct EnvSpec {
  std::string family;
  // The compiler the family drives, as CompilerGym's env.compiler_version reports it (LLVM:
  // "19.1.7"; GCC: the first line of `gcc --version`).
  std::string compiler_version;
  std::vector<ActionSpaceSpec> action_spaces;
  std::vector<SpaceSpec> observation_spaces;
  std::vector<RewardSpec> reward_spaces;

  // -1 when the name is unknown.
  int ObservationIndex(std::string_view name) const;
  int RewardIndex(std::string_view name) const;
  int ActionSpaceIndex(std::string_view name) const;
};

// Whether environments may start background threads in this process (true unless disabled).
// A worker process (engine/worker.h) disables them: it forks itself to fork its env, and a
// fork has only the forking thread.
bool BackgroundThreadsAllowed();
void DisallowBackgroundThreads();

struct StepOutcome {
  bool action_had_no_effect = true;
  // True only when an error ended the episode (a crashing pass, a module that no longer
  // verifies); the error then says why. Episodes never end by themselves.
  bool done = false;
  Status error;
  // CPU seconds (the stepping thread's, engine/cpu_timer.h) spent inside the compiler proper
  // (e.g. running the pass), for benchmarks that separate the engine's overhead from the work
  // it wraps.
  double compute_seconds = 0;
  // Seconds spent checking the result (e.g. verifying the changed IR), of which
  // fingerprint_seconds went to telling whether anything changed.
  double verify_seconds = 0;
  double fingerprint_seconds = 0;
  // How many of the step's actions were applied, the failing one included; -1 = all. A family
  // sets it when an error stops a multi-action step early.
  int actions_applied = -1;
};

// A step with its observations and rewards, as Env::StepAndObserve returns it.
struct Transition {
  bool action_had_no_effect = true;
  // An error ended the episode, in the step or while computing its observations or rewards
  // (error says why). The rule of such a step: each observation is its space's default
  // (DefaultObservation) and each reward is minus what the episode had earned of it, so that
  // the episode sums to 0.
  bool done = false;
  Status error;
  std::vector<Observation> observations;  // one per requested space
  std::vector<double> rewards;            // one per requested reward
  double compute_seconds = 0;             // as StepOutcome's, summed over the actions
  double verify_seconds = 0;
  // stop() asked to stop between two actions: the actions applied are those of actions(), the
  // rewards count them, and no observation was computed.
  bool stopped = false;
};

// What Env::TryActions reports of one candidate.
struct TryOutcome {
  double reward = 0;  // when error is ok
  // Why the candidate failed: the error that ended its episode, or that computing its reward
  // or observation gave.
  Status error;
  Observation observation;  // when one was asked for and error is ok
};

// Where TryActions' time went, summed over its workers (CPU seconds of each worker's thread), for
// benchmarks that set a candidate's cost beside its pass's.
struct TryStats {
  size_t candidates = 0;
  double setup_seconds = 0;        // the workers' forks and snapshots
  double pass_seconds = 0;         // StepOutcome::compute_seconds
  double fingerprint_seconds = 0;  // StepOutcome::fingerprint_seconds
  double verify_seconds = 0;       // the rest of StepOutcome::verify_seconds
  double step_other_seconds = 0;   // the rest of the step (building passes, bookkeeping)
  double reward_seconds = 0;       // rewards and observations
  double restore_seconds = 0;      // DoRestore, or the fork per candidate
};

// A family's saved state, which TryActions returns a scratch env to between candidates.
class EnvSnapshot {
 public:
  virtual ~EnvSnapshot() = default;
};

// Whether an error while computing a step's observations or rewards ends the episode: the
// compiler failed (a crash, a time-out, memory, a refused compile), as opposed to a mistake of
// the caller's (an unknown space, no episode).
bool EndsEpisode(StatusCode code);

// A parameter's value as a number: the whole of `value`, finite, in std::from_chars' format
// ("0.5", "1e-3"); InvalidArgument "<name> must be a number, got <value>" otherwise. Callers
// check the range their parameter allows.
StatusOr<double> ParseNumberParameter(const std::string& name, const std::string& value);

class Env {
 public:
  virtual ~Env() = default;

  virtual const EnvSpec& Spec() const = 0;

  // Starts a new episode on the benchmark. A benchmark that cannot be loaded gives
  // kBenchmarkInit (or kNotFound for a missing file) and leaves the env without an episode.
  Status Reset(const Benchmark& benchmark);

  // Applies the actions in order with the current action space. An out-of-range action is
  // kOutOfRange and changes nothing; an error inside the compiler ends the episode (done).
  StatusOr<StepOutcome> Step(std::span<const int> actions);

  // The one step path: applies the actions, then computes the observations and rewards asked
  // for, and adds the rewards to the episode's sums (EpisodeReward). An error of the compiler
  // (see EndsEpisode) ends the episode by Transition's rule. A mistake of the caller's (no
  // episode, an action out of range, an unknown space index) is the returned error, and
  // changes nothing (unless request.every_error_ends_episode). With request.stop, the actions
  // are applied one at a time and stop() is asked between two; when it answers true, the rest
  // are skipped (see Transition::stopped).
  struct StepRequest {
    std::span<const int> observations;  // observation space indices
    std::span<const int> rewards;       // reward space indices
    // Every error ends the episode by the rule, the caller's mistakes too: the vector engine
    // has no caller to raise to, and the other envs of its batch go on.
    bool every_error_ends_episode = false;
    std::function<bool()> stop = nullptr;
  };
  StatusOr<Transition> StepAndObserve(std::span<const int> actions, const StepRequest& request);

  // The sum of the reward space's rewards that StepAndObserve returned this episode (0 after
  // Reset, or after RestartEpisodeReward). Reward() alone does not count.
  double EpisodeReward(int reward_index) const;
  // Sums the reward space's rewards from here (CompilerGym: a new reward space mid-episode).
  void RestartEpisodeReward(int reward_index);

  // Announces that Step(actions) is the next call, so that an env whose compiler works
  // elsewhere (a worker process) can set it going now: a vector engine starts every env's
  // step before it waits for any, and the workers then run side by side instead of one per
  // waiting thread. Does nothing when the step would be refused. The next call on the env
  // must be that Step.
  void StartStep(std::span<const int> actions);

  virtual StatusOr<Observation> Observe(int observation_index) = 0;

  // How many actions the action space has for this env: its table's, or more where a family
  // lets an env add actions of its own (LLVM's pipeline actions, set as a parameter).
  virtual int NumActions(int action_space) const;

  // Computes the reward since it was last computed in this episode (since reset the first
  // time), and advances its bookkeeping.
  StatusOr<double> Reward(int reward_index);

  // An independent deep copy: same program state, episode, and reward bookkeeping.
  StatusOr<std::unique_ptr<Env>> Fork();

  // Named settings of an environment family (e.g. how many runs a Runtime observation
  // measures), as text. Unknown names are kInvalidArgument; bad values too. Forks copy them.
  // Names starting "testing." are one-shot test hooks, not settings: nothing copies them.
  virtual Status SetParameter(const std::string& name, const std::string& value);
  virtual StatusOr<std::string> GetParameter(const std::string& name) const;

  // A family's own operation beyond the common interface (e.g. LLVM's "check_semantics"), by
  // name, with text in and out, so that it reaches an env in a worker process unchanged.
  // Unknown methods are kUnimplemented.
  virtual StatusOr<std::string> Call(const std::string& method, const std::string& argument);

  // Evaluates candidate action sequences from the current state, each as if on a fork of its
  // own: the reward (and, with observation_index >= 0, the observation) after it equals
  // Fork(), Step(candidate), Reward(). This env does not change. Candidates run in parallel
  // on the caller's TBB arena, on one fork per thread that returns to the state between
  // candidates through the family's snapshot (DoSnapshot / DoRestore), or on a fork per
  // candidate where the family has none. The call fails only when it is wrong (no episode, an
  // action out of range, an unknown space); a failing candidate reports its error.
  // With `stats`, adds where the time went to it.
  StatusOr<std::vector<TryOutcome>> TryActions(std::span<const std::vector<int>> candidates,
                                               int reward_index, int observation_index = -1,
                                               TryStats* stats = nullptr);

  // Ends the episode after an error outside Step() (see EndsEpisode): the next Step() is
  // refused until a reset.
  void EndEpisode() { episode_over_ = true; }

  Status SetActionSpace(int action_space_index);
  int action_space() const { return action_space_; }
  // OutOfRange unless every action is an index of the current action space.
  Status CheckActions(std::span<const int> actions) const;
  // What Step(actions) would refuse: no episode, an episode over, an action out of range.
  Status CheckStep(std::span<const int> actions) const;
  bool in_episode() const { return in_episode_; }
  bool episode_over() const { return episode_over_; }
  // The actions applied in this episode, in order (a fork copies them): what a replay of the
  // episode applies, whatever interrupted the caller between steps.
  const std::vector<int>& actions() const { return actions_; }
  const std::string& benchmark_uri() const { return benchmark_uri_; }

 protected:
  virtual Status DoReset(const Benchmark& benchmark) = 0;
  virtual StatusOr<StepOutcome> DoStep(std::span<const int> actions) = 0;
  virtual void DoStartStep(std::span<const int> /*actions*/) {}
  virtual StatusOr<std::unique_ptr<Env>> DoFork() = 0;
  // TryActions' hooks: save the family's state, and return to it (as often as asked), at less
  // cost than a fork. `changed` is false after a candidate that had no effect (so the family
  // may keep what it has, restoring only what a no-op can touch). The engine keeps its own
  // bookkeeping (actions, rewards). Unimplemented by default: TryActions then forks per
  // candidate.
  virtual StatusOr<std::unique_ptr<EnvSnapshot>> DoSnapshot();
  virtual Status DoRestore(const EnvSnapshot& snapshot, bool changed);

 private:
  struct RewardState {
    std::optional<double> previous_cost;  // unset until first computed this episode
    double episode_sum = 0;               // what StepAndObserve returned this episode
  };
  Status CheckIndices(std::span<const int> observation_indices,
                      std::span<const int> reward_indices) const;
  StatusOr<double> ScalarObservation(const std::string& name);

  int action_space_ = 0;
  bool in_episode_ = false;
  bool episode_over_ = false;
  std::string benchmark_uri_;
  std::vector<int> actions_;
  std::vector<RewardState> rewards_;
};

}  // namespace compiler_gym
