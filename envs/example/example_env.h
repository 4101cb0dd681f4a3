// example-v0: the smallest complete environment family, kept as the template for new ones
// (docs/adding_a_family.md). It is registered like every other family and its
// tests build it through the same generic path (tests/test_example_env.py).
//
// The "compiler" sorts a list: a program is up to kMaxLength integers (a benchmark's data, as
// text: "3 1 4 1 5"), action swap-i swaps the neighbours i and i+1, and the cost is the number
// of inversions (pairs out of order). Observations: values (int64[kMaxLength], padded with 0),
// program (text), inversions, inversions_O0 (at reset). Rewards: inversions (previous -
// current) and inversions_norm (the same over the inversions at reset). Call("sort_actions")
// gives a sequence of actions that sorts the current state, as a JSON list.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/env.h"
#include "engine/registry.h"

namespace compiler_gym::example_env {

inline constexpr int kMaxLength = 8;

class ExampleEnv final : public Env {
 public:
  const EnvSpec& Spec() const override;
  StatusOr<Observation> Observe(int index) override;
  StatusOr<std::string> Call(const std::string& method, const std::string& argument) override;

 protected:
  Status DoReset(const Benchmark& benchmark) override;
  StatusOr<StepOutcome> DoStep(std::span<const int> actions) override;
  StatusOr<std::unique_ptr<Env>> DoFork() override;

 private:
  std::vector<int64_t> values_;
  int64_t initial_inversions_ = 0;
};

// Adds the example family and example-v0 to the registry.
Status RegisterExampleEnvs(Registry& registry);

}  // namespace compiler_gym::example_env
