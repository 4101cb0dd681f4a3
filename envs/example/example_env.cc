// example-v0's spaces, episode, fork and registration: the whole family, small enough to copy
// as the start of a new one.
#include "envs/example/example_env.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>

namespace compiler_gym::example_env {
namespace {

// The observation table: Observe(i) answers Spec().observation_spaces[i].
enum ObservationIndex { kValues, kProgram, kInversions, kInversionsO0 };

int64_t Inversions(const std::vector<int64_t>& v) {
  int64_t n = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    for (size_t j = i + 1; j < v.size(); ++j) n += v[i] > v[j];
  }
  return n;
}

}  // namespace

const EnvSpec& ExampleEnv::Spec() const {
  static const EnvSpec spec = [] {
    EnvSpec s;
    s.family = "example";
    ActionSpaceSpec swaps{"swaps", {}, "swap-i swaps the values at positions i and i+1"};
    for (int i = 0; i + 1 < kMaxLength; ++i)
      swaps.action_names.push_back("swap-" + std::to_string(i));
    s.action_spaces = {swaps};
    // One row per space, fields by name; the rest take engine/space.h's defaults.
    s.observation_spaces = {
        {.name = "values",
         .kind = SpaceKind::kVector,
         .dtype = DType::kInt64,
         .shape = {kMaxLength},
         .doc = "the list, 0-padded"},
        {.name = "program", .kind = SpaceKind::kText, .shape = {-1}, .doc = "the list as text"},
        {.name = "inversions", .dtype = DType::kInt64, .doc = "pairs out of order"},
        {.name = "inversions_O0", .dtype = DType::kInt64, .doc = "inversions at reset"},
    };
    s.reward_spaces = {
        {.name = "inversions",
         .cost_observation = "inversions",
         .initial_observation = "inversions_O0",
         .doc = "inversions removed since the last reward"},
        {.name = "inversions_norm",
         .cost_observation = "inversions",
         .initial_observation = "inversions_O0",
         .kind = RewardKind::kNormByInitial,
         .doc = "the same, over the inversions at reset"},
    };
    return s;
  }();
  return spec;
}

Status ExampleEnv::DoReset(const Benchmark& benchmark) {
  // A benchmark is its data: whitespace-separated integers. Anything else is refused whole.
  std::vector<int64_t> values;
  const char* p = benchmark.data.data();
  const char* end = p + benchmark.data.size();
  while (true) {
    while (p != end && std::isspace(static_cast<unsigned char>(*p))) ++p;
    if (p == end) break;
    int64_t v = 0;
    const auto [next, error] = std::from_chars(p, end, v);
    if (error != std::errc() || (next != end && !std::isspace(static_cast<unsigned char>(*next)))) {
      return BenchmarkInitError(benchmark.uri + ": not a list of integers");
    }
    values.push_back(v);
    p = next;
  }
  if (values.empty() || values.size() > kMaxLength) {
    return BenchmarkInitError(benchmark.uri + ": needs 1 to " + std::to_string(kMaxLength) +
                              " integers, has " + std::to_string(values.size()));
  }
  values_ = std::move(values);
  initial_inversions_ = Inversions(values_);
  return Status::Ok();
}

StatusOr<StepOutcome> ExampleEnv::DoStep(std::span<const int> actions) {
  // The engine has checked the range of each action; a swap past the list's end does nothing.
  StepOutcome out;
  for (int a : actions) {
    const size_t i = static_cast<size_t>(a);
    if (i + 1 >= values_.size() || values_[i] == values_[i + 1]) continue;
    std::swap(values_[i], values_[i + 1]);
    out.action_had_no_effect = false;
  }
  return out;
}

StatusOr<Observation> ExampleEnv::Observe(int index) {
  if (!in_episode()) return NotInEpisode("observation");
  switch (index) {
    case kValues: {
      std::vector<int64_t> padded(kMaxLength, 0);
      std::copy(values_.begin(), values_.end(), padded.begin());
      return Observation(std::move(padded));
    }
    case kProgram: {
      std::string text;
      for (int64_t v : values_) {
        if (!text.empty()) text += ' ';
        text += std::to_string(v);
      }
      return Observation(Text{text});
    }
    case kInversions:
      return Observation(Inversions(values_));
    case kInversionsO0:
      return Observation(initial_inversions_);
  }
  return InvalidArgument("unknown observation space index " + std::to_string(index));
}

StatusOr<std::string> ExampleEnv::Call(const std::string& method, const std::string& argument) {
  if (method == "sort_actions") {  // a bubble sort of a copy, recording its swaps
    if (!in_episode()) return NoEpisode("sort_actions before reset()");
    std::vector<int64_t> v = values_;
    std::vector<int> swaps;
    for (size_t pass = 0; pass < v.size(); ++pass) {
      for (size_t i = 0; i + 1 < v.size(); ++i) {
        if (v[i] <= v[i + 1]) continue;
        std::swap(v[i], v[i + 1]);
        swaps.push_back(static_cast<int>(i));
      }
    }
    return nlohmann::json(swaps).dump();
  }
  return Env::Call(method, argument);
}

StatusOr<std::unique_ptr<Env>> ExampleEnv::DoFork() {
  // The whole state is two members; the engine copies the episode's bookkeeping.
  auto fork = std::make_unique<ExampleEnv>();
  fork->values_ = values_;
  fork->initial_inversions_ = initial_inversions_;
  return std::unique_ptr<Env>(std::move(fork));
}

Status RegisterExampleEnvs(Registry& registry) {
  FamilyEntry family;
  family.name = "example";
  family.doc = "A list sorted by swaps";
  RETURN_IF_ERROR(registry.AddFamily(std::move(family)));
  return registry.Add(EnvEntry{"example-v0", "example", "", "inversions",
                               "benchmark://example-v0/0", "The example family: sort by swaps",
                               [] { return std::make_unique<ExampleEnv>(); }});
}

}  // namespace compiler_gym::example_env
