// The llvm family's registration: its environment ids, and what the generic layers need of it
// beyond the Env interface (engine/registry.h's FamilyEntry).
#include <algorithm>
#include <nlohmann/json.hpp>

#include "envs/llvm/benchmark_cache.h"
#include "envs/llvm/llvm_env.h"
#include "envs/llvm/module_prefetch.h"
#include "envs/llvm/module_util.h"
#include "envs/llvm/passes.h"
#include "envs/llvm/runtime.h"
#include "observations/autophase.h"
#include "observations/instcount.h"
#include "observations/vocabulary.h"

namespace compiler_gym::llvm_env {
namespace {

// Operations that need no env, for compiler_gym.envs.llvm_env. Structured results are JSON.
StatusOr<std::string> FamilyCall(const std::string& method, const std::string& argument) {
  // argument: an action space's name (empty: the first); [[name, pipeline, LLVM name], ...]
  if (method == "pass_table") {
    const auto& spaces = LlvmEnvSpec().action_spaces;
    int space = 0;
    while (space < static_cast<int>(spaces.size()) && !argument.empty() &&
           spaces[space].name != argument) {
      ++space;
    }
    if (space == static_cast<int>(spaces.size())) {
      return InvalidArgument("unknown action space '" + argument + "'");
    }
    nlohmann::json rows = nlohmann::json::array();
    for (const PassRow& row : ActionTable(space)) {
      rows.push_back({row.flag, row.pipeline, row.llvm_name});
    }
    return rows.dump();
  }
  if (method == "inst2vec_statement_graph") {  // argument: IR text or bitcode
    ASSIGN_OR_RETURN(observations::Inst2vecStatementGraph graph,
                     Inst2vecStatementGraphOf(argument));
    // Statements are IR text, which may hold bytes that are not UTF-8 (string constants).
    return nlohmann::json{{"statements", graph.statements}, {"edges", graph.edges}}.dump(
        -1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  if (method == "feature_names") {  // {"Autophase": [...], "InstCount": [...]}, in order
    return nlohmann::json{{"Autophase", observations::AutophaseFeatureNames()},
                          {"InstCount", observations::InstCountFeatureNames()}}
        .dump();
  }
  if (method == "clang_path") return ClangPath();
  if (method == "clang_frontend_flags") return nlohmann::json(ClangFrontendFlags()).dump();
  if (method == "split_by_function") {  // argument: IR; [[function, IR text], ...]
    ASSIGN_OR_RETURN(auto parts, SplitByFunction(argument));
    return nlohmann::json(parts).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  if (method == "link") {  // argument: a JSON list of IR texts; the linked module's IR text
    const nlohmann::json modules = nlohmann::json::parse(argument, nullptr, false);
    if (!modules.is_array() ||
        !std::all_of(modules.begin(), modules.end(),
                     [](const nlohmann::json& m) { return m.is_string(); })) {
      return InvalidArgument("link takes a JSON list of IR texts");
    }
    return LinkModules(modules.get<std::vector<std::string>>());
  }
  if (method == "clear_benchmark_cache") {
    ClearBenchmarkCache();
    return std::string();
  }
  if (method == "set_benchmark_cache_limit") {  // argument: bytes, in decimal
    int64_t bytes = 0;
    size_t used = 0;
    try {
      bytes = std::stoll(argument, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != argument.size() || bytes < 0) {
      return InvalidArgument("set_benchmark_cache_limit: not a byte count: '" + argument + "'");
    }
    SetBenchmarkCacheLimit(bytes);
    return std::string();
  }
  if (method == "benchmark_cache_stats") {
    const BenchmarkCacheStats stats = GetBenchmarkCacheStats();
    return nlohmann::json{
        {"entries", stats.entries}, {"bytes", stats.bytes}, {"limit_bytes", stats.limit_bytes}}
        .dump();
  }
  return Unimplemented("the llvm family has no operation '" + method + "'");
}

StatusOr<ProbeResult> Probe(const Benchmark& benchmark, double timeout_seconds) {
  ASSIGN_OR_RETURN(const ProgramRuns runs,
                   ProbeBenchmark(benchmark, RunConfig{.timeout_seconds = timeout_seconds}));
  return ProbeResult{runs.last.stdout_text, runs.runtimes.empty() ? 0.0 : runs.runtimes.front()};
}

StatusOr<HostTable> Inst2vecTable() {
  ASSIGN_OR_RETURN(const observations::Inst2vecModel* model, observations::Inst2vecModelData());
  // Row 0 is the unknown statement's: the vocabulary's rows follow it.
  return HostTable{model->embeddings, static_cast<int64_t>(model->vocabulary.size()) + 1,
                   model->dim};
}

}  // namespace

Status RegisterLlvmEnvs(Registry& registry) {
  FamilyEntry family;
  family.name = "llvm";
  family.doc = "LLVM 19 phase ordering";
  family.call = FamilyCall;
  family.probe = Probe;
  family.gathered_spaces = {{"Inst2vec", "Inst2vecEmbeddingIndices", Inst2vecTable}};
  family.shutdown = StopBackgroundWorker;
  RETURN_IF_ERROR(registry.AddFamily(std::move(family)));
  struct Row {
    const char* id;
    const char* observation;
    const char* reward;
  };
  static constexpr Row kIds[] = {
      {"llvm-v0", "", ""},
      {"llvm-ic-v0", "", "IrInstructionCountOz"},
      {"llvm-codesize-v0", "", "ObjectTextSizeOz"},
      {"llvm-autophase-ic-v0", "Autophase", "IrInstructionCountOz"},
      {"llvm-autophase-codesize-v0", "Autophase", "ObjectTextSizeOz"},
      {"llvm-ir-ic-v0", "Ir", "IrInstructionCountOz"},
      {"llvm-ir-codesize-v0", "Ir", "ObjectTextSizeOz"},
  };
  for (const Row& row : kIds) {
    RETURN_IF_ERROR(registry.Add(EnvEntry{row.id, "llvm", row.observation, row.reward,
                                          "benchmark://builtin-v0/qsort", "LLVM 19 phase ordering",
                                          [] { return std::make_unique<LlvmEnv>(); }}));
  }
  return Status::Ok();
}

}  // namespace compiler_gym::llvm_env
