// Registry: environment families and their ids.
//
// Each family adds, from its own folder (e.g. envs/llvm's RegisterLlvmEnvs), one FamilyEntry
// (what the generic layers need of it beyond the Env interface) and its ids, so that each is
// defined exactly once; the Python module and the vector engine only iterate the registry.
//
//   Registry registry;
//   RETURN_IF_ERROR(llvm_env::RegisterLlvmEnvs(registry));
//   std::unique_ptr<Env> env = registry.Make("llvm-ic-v0").value();
#pragma once

#include <functional>
#include <memory>
#include <span>
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

// An embedding table that a batched space gathers rows from: rows x dim floats, owned by the
// family for the life of the process.
struct HostTable {
  std::span<const float> values;
  int64_t rows = 0;
  int64_t dim = 0;
};

// A space the vector engine batches as one gather from a table resident on the device rather
// than as per-env copies: the user asks for `space` ([n, dim] per env), the envs compute
// `indices_space` (a ragged int64 space of table rows).
struct GatheredSpace {
  std::string space;          // e.g. LLVM's "Inst2vec"
  std::string indices_space;  // e.g. "Inst2vecEmbeddingIndices"
  std::function<StatusOr<HostTable>()> table;
};

// What a family's probe of a benchmark saw: the program's output when it ran, and how long.
struct ProbeResult {
  std::string stdout_text;
  double seconds = 0;
};

struct FamilyEntry {
  std::string name;  // e.g. "llvm": EnvEntry::family, and Python's compiler_gym.envs.<name>_env
  std::string doc;
  // Operations of the family that need no env (its tables, caches, tools), by name, text in
  // and out (JSON where structured); Python's family module wraps them. Empty: none.
  std::function<StatusOr<std::string>(const std::string& method, const std::string& argument)> call;
  // Whether a benchmark works as the family's envs would use it (loads; builds and runs when
  // runnable), caching nothing: what dataset installers keep or drop a program by.
  std::function<StatusOr<ProbeResult>(const Benchmark&, double timeout_seconds)> probe;
  std::vector<GatheredSpace> gathered_spaces;
  // Runs once before the process exits, while it is still whole (joins background threads).
  std::function<void()> shutdown;
};

class Registry {
 public:
  // kInvalidArgument if the id is taken, kFailedPrecondition if its family is not registered.
  Status Add(EnvEntry entry);
  // kInvalidArgument if the family is registered already.
  Status AddFamily(FamilyEntry family);
  StatusOr<std::unique_ptr<Env>> Make(std::string_view id) const;
  const EnvEntry* Find(std::string_view id) const;
  const FamilyEntry* FindFamily(std::string_view name) const;
  const std::vector<EnvEntry>& entries() const { return entries_; }
  const std::vector<FamilyEntry>& families() const { return families_; }

  // The family's operation `method` (FamilyEntry::call); kInvalidArgument for an unknown family,
  // kUnimplemented for a family without that operation.
  StatusOr<std::string> CallFamily(std::string_view family, const std::string& method,
                                   const std::string& argument) const;

 private:
  std::vector<EnvEntry> entries_;
  std::vector<FamilyEntry> families_;
};

}  // namespace compiler_gym
