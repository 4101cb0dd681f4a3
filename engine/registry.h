// Registry: environment id -> factory and default spaces.
//
// Each environment family adds its ids from its own table (e.g. envs/llvm's
// RegisterLlvmEnvs), so an id is defined exactly once; Python reads the same table.
//
//   Registry registry;
//   llvm_env::RegisterLlvmEnvs(registry);
//   std::unique_ptr<Env> env = registry.Make("llvm-ic-v0").value();
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/env.h"

namespace compiler_gym {

struct EnvEntry {
  std::string id;                   // e.g. "llvm-autophase-ic-v0"
  std::string family;               // e.g. "llvm"
  std::string default_observation;  // empty = none
  std::string default_reward;       // empty = none
  std::string default_benchmark;    // e.g. "benchmark://builtin-v0/qsort"
  std::string doc;
  std::function<std::unique_ptr<Env>()> factory;
};

class Registry {
 public:
  // kInvalidArgument if the id is taken.
  Status Add(EnvEntry entry);
  StatusOr<std::unique_ptr<Env>> Make(std::string_view id) const;
  const EnvEntry* Find(std::string_view id) const;
  const std::vector<EnvEntry>& entries() const { return entries_; }

 private:
  std::vector<EnvEntry> entries_;
};

}  // namespace compiler_gym
