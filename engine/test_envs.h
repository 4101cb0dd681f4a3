// Small deterministic environments for the engine's tests. Not part of the library.
#pragma once

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "engine/env.h"

namespace compiler_gym::testing {

// State: a cost, starting at 10 plus the benchmark's number ("benchmark://counter/N"), that each
// action lowers by (action + 1). Observations: Cost, CostO0 (the start), CostOz (4), History
// (the last three costs, int64[3]) and Trace (text of all actions). Rewards on Cost.
// Benchmark "bad" fails to load; benchmark "throw" makes Step() throw; benchmark "crash" makes
// Step() report an error that ends the episode, "crash-late" from its second step on. Faults for
// the process-isolated executor's tests (only ever run in a worker process): on Step(), "segv"
// segfaults, "abort" aborts, "hang" never returns, and "alloc" allocates without bound. Benchmark
// "rendezvous:MINE:OTHER" makes step k create the file MINE<k> and wait (up to 20 s) for OTHER<k>:
// two such envs' steps end only if both run at once.
class CounterEnv final : public Env {
 public:
  const EnvSpec& Spec() const override {
    static const EnvSpec spec = [] {
      EnvSpec s;
      s.family = "counter";
      s.action_spaces = {{"dec", {"-1", "-2", "-3"}, ""}};
      for (const char* name : {"Cost", "CostO0", "CostOz"}) {
        SpaceSpec o;
        o.name = name;
        o.kind = SpaceKind::kScalar;
        o.dtype = DType::kInt64;
        s.observation_spaces.push_back(o);
      }
      s.observation_spaces.push_back(SpaceSpec{"History", SpaceKind::kVector, DType::kInt64, {3}});
      s.observation_spaces.push_back(SpaceSpec{"Trace", SpaceKind::kText, DType::kNone, {-1}});
      s.reward_spaces = {
          {"Delta", "Cost", "CostO0", "", RewardKind::kDelta},
          {"Norm", "Cost", "CostO0", "", RewardKind::kNormByInitial},
          {"Oz", "Cost", "CostO0", "CostOz", RewardKind::kNormByBaseline},
      };
      return s;
    }();
    return spec;
  }

  StatusOr<Observation> Observe(int index) override {
    switch (index) {
      case 0:
        return Observation(cost_);
      case 1:
        return Observation(initial_);
      case 2:
        return Observation(int64_t{4});
      case 3:
        if (mode_ == "short") return Observation(std::vector<int64_t>{h_[0], h_[1]});  // a bug
        return Observation(std::vector<int64_t>{h_[0], h_[1], h_[2]});
      case 4:
        return Observation(Text{trace_});
    }
    return InvalidArgument("no such observation");
  }

 protected:
  Status DoReset(const Benchmark& benchmark) override {
    if (benchmark.uri == "bad") return BenchmarkInitError("bad benchmark");
    mode_ = benchmark.uri;
    int64_t n = 0;
    const auto slash = benchmark.uri.rfind('/');
    if (slash != std::string::npos) n = std::atoll(benchmark.uri.c_str() + slash + 1);
    initial_ = cost_ = 10 + n;
    h_[0] = h_[1] = h_[2] = cost_;
    trace_.clear();
    return Status::Ok();
  }
  StatusOr<StepOutcome> DoStep(std::span<const int> actions) override {
    if (mode_ == "throw") throw std::runtime_error("injected exception");
    if (mode_ == "segv") std::raise(SIGSEGV);
    if (mode_ == "abort") std::abort();
    if (mode_ == "hang") {
      while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    if (mode_ == "alloc") {
      std::vector<std::unique_ptr<char[]>> hoard;
      while (true) {
        hoard.emplace_back(new char[64 << 20]);
        std::memset(hoard.back().get(), 1, 64 << 20);
      }
    }
    StepOutcome out;
    constexpr std::string_view kRendezvous = "rendezvous:";
    if (mode_.starts_with(kRendezvous)) {
      const size_t mine = kRendezvous.size();
      const size_t colon = mode_.find(':', mine);
      const std::string k = std::to_string(trace_.size());
      std::ofstream(mode_.substr(mine, colon - mine) + k).put('1');
      const std::string other = mode_.substr(colon + 1) + k;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (!std::filesystem::exists(other)) {
        if (std::chrono::steady_clock::now() > deadline) {
          out.done = true;
          out.error = Aborted("rendezvous: nobody came to " + other);
          return out;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    if (mode_ == "crash" || (mode_ == "crash-late" && !trace_.empty())) {
      out.done = true;
      out.error = Internal("injected crash");
      return out;
    }
    for (int a : actions) {
      cost_ -= a + 1;
      h_[0] = h_[1];
      h_[1] = h_[2];
      h_[2] = cost_;
      trace_ += std::to_string(a);
      out.action_had_no_effect = false;
    }
    return out;
  }
  StatusOr<std::unique_ptr<Env>> DoFork() override {
    auto copy = std::make_unique<CounterEnv>(*this);
    return std::unique_ptr<Env>(std::move(copy));
  }

 private:
  std::string mode_;
  int64_t initial_ = 10;
  int64_t cost_ = 10;
  int64_t h_[3] = {10, 10, 10};
  std::string trace_;
};

}  // namespace compiler_gym::testing
