// The LLVM family's observation and reward spaces: a table row per space, with the functions
// that compute observations from an env's module, baselines and runs.
#include <array>
#include <limits>

#include "envs/llvm/llvm_env_impl.h"

namespace compiler_gym::llvm_env {

namespace {

using Impl = LlvmEnv::Impl;

constexpr double kInf = std::numeric_limits<double>::infinity();

template <size_t N>
std::vector<int64_t> ToVector(const std::array<int64_t, N>& a) {
  return std::vector<int64_t>(a.begin(), a.end());
}

StatusOr<Observation> Baseline(Impl& s, OptLevel level, CostKind cost) {
  ASSIGN_OR_RETURN(int64_t value, s.benchmark->Baseline(level, cost));
  return Observation(value);
}

template <OptLevel level, CostKind cost>
StatusOr<Observation> BaselineOf(Impl& s) {
  return Baseline(s, level, cost);
}

StatusOr<Observation> WriteBitcodeFile(Impl& s) {
  ASSIGN_OR_RETURN(std::string dir, s.Workdir());
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, "module.bc");
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) return Internal("cannot write " + std::string(path.str()) + ": " + ec.message());
  os << ModuleToBitcode(*s.module);
  os.close();
  if (os.has_error()) {
    const std::string why = os.error().message();
    os.clear_error();  // else the stream's destructor ends the process (a full disk)
    return ResourceExhausted("cannot write " + std::string(path.str()) + ": " + why);
  }
  return Observation(Text{std::string(path.str())});
}

StatusOr<Observation> ObjectTextSize(Impl& s) {
  ASSIGN_OR_RETURN(const std::string* object, s.ObjectFile());
  ASSIGN_OR_RETURN(int64_t size, TextSectionSize(*object));
  return Observation(size);
}

StatusOr<Observation> TextSize(Impl& s) {
  if (!s.benchmark->benchmark().buildable) return ObjectTextSize(s);
  ASSIGN_OR_RETURN(const Executable* executable, s.GetExecutable());
  ASSIGN_OR_RETURN(int64_t size, ExecutableTextSize(*executable));
  return Observation(size);
}

StatusOr<Observation> Buildtime(Impl& s) {
  if (!s.benchmark->benchmark().buildable) return Observation(std::vector<double>{});
  ASSIGN_OR_RETURN(const Executable* executable, s.GetExecutable());
  return Observation(std::vector<double>{executable->build_seconds()});
}

StatusOr<Observation> Runtime(Impl& s) {
  if (!s.benchmark->benchmark().runnable) return Observation(std::vector<double>{});
  ASSIGN_OR_RETURN(const Executable* executable, s.GetExecutable());
  ASSIGN_OR_RETURN(ProgramRuns runs,
                   RunExecutable(*executable, s.benchmark->benchmark(), s.run_config));
  return Observation(std::move(runs.runtimes));
}

StatusOr<Observation> RuntimeO0(Impl& s) {
  // No value, as Runtime's empty list, so that code observing every space goes on; the
  // Runtime reward refuses a NaN C0 with a clear error (Env::Reward).
  if (!s.benchmark->benchmark().runnable) {
    return Observation(std::numeric_limits<double>::quiet_NaN());
  }
  ASSIGN_OR_RETURN(ProgramRuns runs, s.benchmark->ReferenceRun(s.run_config));
  return Observation(Median(runs.runtimes));
}

nlohmann::ordered_json CpuInfoJson() {
  // CompilerGym's keys, in its order: each cache level's size in bytes (-1 when absent) and
  // count.
  nlohmann::ordered_json info;
  info["name"] = llvm::sys::getHostCPUName().str();
  info["cores_count"] = std::thread::hardware_concurrency();
  for (const HostCache& cache : HostCaches()) {
    info[cache.name + "_size"] = cache.size;
    info[cache.name + "_count"] = cache.count;
  }
  return info;
}

nlohmann::ordered_json NamedCounts(const std::vector<std::string>& names, const std::string& suffix,
                                   const auto& values, size_t offset = 0) {
  nlohmann::ordered_json dict = nlohmann::ordered_json::object();
  for (size_t i = 0; i < values.size(); ++i) dict[names[i + offset] + suffix] = values[i];
  return dict;
}

// JSON text of arbitrary IR strings: bytes that are not UTF-8 (in string constants) become U+FFFD.
std::string DumpJson(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<int64_t> Inst2vecIndices(Impl& s, const observations::Inst2vecModel& model) {
  const std::vector<std::string> statements = observations::Inst2vecPreprocess(*s.module);
  std::vector<int64_t> ids;
  ids.reserve(statements.size());
  for (const std::string& statement : statements) ids.push_back(model.vocabulary.Lookup(statement));
  return ids;
}

StatusOr<Observation> Inst2vecEmbeddings(Impl& s) {
  ASSIGN_OR_RETURN(const observations::Inst2vecModel* model, observations::Inst2vecModelData());
  const std::vector<int64_t> ids = Inst2vecIndices(s, *model);
  std::vector<float> out(ids.size() * model->dim);
  for (size_t i = 0; i < ids.size(); ++i) {
    std::copy_n(model->embeddings.data() + ids[i] * model->dim, model->dim,
                out.data() + i * model->dim);
  }
  return Observation(std::move(out));
}

StatusOr<Observation> ProgramlGraphObservation(Impl& s) {
  ASSIGN_OR_RETURN(const observations::Vocabulary* vocabulary, observations::ProgramlVocabulary());
  observations::ProgramlGraph g = observations::BuildProgramlGraph(*s.module);
  auto graph = std::make_shared<Graph>();
  auto widen = [](const std::vector<int32_t>& v) {
    return std::vector<int64_t>(v.begin(), v.end());
  };
  graph->node_type = widen(g.node_type);
  graph->node_function = widen(g.node_function);
  graph->node_block = widen(g.node_block);
  graph->node_text_id.reserve(g.node_text.size());
  for (const std::string& text : g.node_text)
    graph->node_text_id.push_back(vocabulary->Lookup(text));
  graph->node_text = std::move(g.node_text);
  graph->node_full_text = std::move(g.node_full_text);
  graph->edge_source = widen(g.edge_source);
  graph->edge_target = widen(g.edge_target);
  graph->edge_flow = widen(g.edge_flow);
  graph->edge_position = widen(g.edge_position);
  return Observation(GraphPtr(std::move(graph)));
}

}  // namespace

// One row per observation space: its spec, fields by name (the defaults of engine/space.h
// otherwise), and the function that computes it.
const std::vector<ObservationRow>& ObservationTable() {
  using observations::kAutophaseNumFeatures;
  using observations::kInstCountNumFeatures;
  using enum SpaceKind;
  static const std::vector<ObservationRow> rows = {
      {.spec = {.name = "Ir",
                .kind = kText,
                .shape = {-1},
                .low = 0,
                .doc = "The module as LLVM text IR."},
       .compute = [](Impl& s) -> StatusOr<Observation> {
         return Observation(Text{ModuleToText(*s.module)});
       }},
      {.spec = {.name = "IrSha1",
                .kind = kText,
                .shape = {40},
                .low = 0,
                .doc = "40 hex digits: SHA-1 of the module's bitcode; changes iff the module "
                       "changes."},
       .compute = [](Impl& s) -> StatusOr<Observation> {
         return Observation(Text{ModuleSha1(*s.module)});
       }},
      {.spec = {.name = "Bitcode",
                .kind = kBytes,
                .dtype = DType::kUint8,
                .shape = {-1},
                .low = 0,
                .high = 255,
                .doc = "The module as LLVM bitcode."},
       .compute = [](Impl& s) -> StatusOr<Observation> {
         return Observation(Bytes{ModuleToBitcode(*s.module)});
       }},
      {.spec = {.name = "BitcodeFile",
                .kind = kText,
                .shape = {-1},
                .low = 0,
                .deterministic = false,
                .doc = "Path of a bitcode file holding the module, valid until the next step or "
                       "reset."},
       .compute = WriteBitcodeFile,
       .cacheable = false},
      {.spec = {.name = "InstCount",
                .kind = kVector,
                .dtype = DType::kInt64,
                .shape = {kInstCountNumFeatures},
                .low = 0,
                .doc = "70 counts: TotalInsts, TotalBlocks, TotalFuncs, then one per opcode."},
       .compute = [](Impl& s) -> StatusOr<Observation> {
         return Observation(ToVector(observations::ComputeInstCount(*s.module)));
       }},
      {.spec = {.name = "InstCountDict",
                .kind = kDict,
                .dtype = DType::kInt64,
                .shape = {kInstCountNumFeatures},
                .low = 0,
                .doc = "InstCount as a dict keyed <feature>Count."},
       .compute = [](Impl& s) -> StatusOr<Observation> {
         const auto counts = observations::ComputeInstCount(*s.module);
         return Observation(
             Json{NamedCounts(observations::InstCountFeatureNames(), "Count", counts).dump()});
       }},
      {.spec = {.name = "InstCountNorm",
                .kind = kVector,
                .dtype = DType::kFloat32,
                .shape = {kInstCountNumFeatures - 1},
                .low = 0,
                .high = 1,
                .doc = "InstCount[1:] / max(InstCount[0], 1)."},
       .compute = [](Impl& s) -> StatusOr<Observation> {
         return Observation(observations::InstCountNorm(observations::ComputeInstCount(*s.module)));
       }},
      {.spec = {.name = "InstCountNormDict",
                .kind = kDict,
                .dtype = DType::kFloat32,
                .shape = {kInstCountNumFeatures - 1},
                .low = 0,
                .high = 1,
                .doc = "InstCountNorm as a dict keyed <feature>Density."},
       .compute = [](Impl& s) -> StatusOr<Observation> {
         const auto norm = observations::InstCountNorm(observations::ComputeInstCount(*s.module));
         return Observation(
             Json{NamedCounts(observations::InstCountFeatureNames(), "Density", norm, 1).dump()});
       }},
      {.spec = {.name = "Autophase",
                .kind = kVector,
                .dtype = DType::kInt64,
                .shape = {kAutophaseNumFeatures},
                .low = 0,
                .doc = "56 Autophase features (Huang et al. 2019)."},
       .compute = [](Impl& s) -> StatusOr<Observation> {
         return Observation(ToVector(observations::ComputeAutophase(*s.module)));
       }},
      {.spec = {.name = "AutophaseDict",
                .kind = kDict,
                .dtype = DType::kInt64,
                .shape = {kAutophaseNumFeatures},
                .low = 0,
                .doc = "Autophase as a dict keyed by feature name."},
       .compute = [](Impl& s) -> StatusOr<Observation> {
         const auto values = observations::ComputeAutophase(*s.module);
         return Observation(
             Json{NamedCounts(observations::AutophaseFeatureNames(), "", values).dump()});
       }},
      {.spec = {.name = "Inst2vecPreprocessedText",
                .kind = kDict,
                .low = 0,
                .doc = "inst2vec statements of the module (global variables, then "
                       "instructions), normalized: identifiers <%ID>/<@ID>, literals "
                       "<INT>/<FLOAT>/<STRING>, branch targets <LABEL>, named structs inlined, "
                       "metadata and attributes cut."},
       .compute = [](Impl& s) -> StatusOr<Observation> {
         return Observation(Json{DumpJson(observations::Inst2vecPreprocess(*s.module))});
       }},
      {.spec = {.name = "Inst2vecEmbeddingIndices",
                .kind = kRagged,
                .dtype = DType::kInt64,
                .shape = {-1},
                .low = 0,
                .doc = "The inst2vec vocabulary id of each statement; unknown statements get the "
                       "last id (the vocabulary size)."},
       .compute = [](Impl& s) -> StatusOr<Observation> {
         ASSIGN_OR_RETURN(const observations::Inst2vecModel* model,
                          observations::Inst2vecModelData());
         return Observation(Inst2vecIndices(s, *model));
       }},
      {.spec = {.name = "Inst2vec",
                .kind = kRagged,
                .dtype = DType::kFloat32,
                .shape = {-1, observations::kInst2vecDim},
                .doc = "The 200-d inst2vec embedding of each statement (the project's own "
                       "trained table)."},
       .compute = Inst2vecEmbeddings},
      {.spec = {.name = "Programl",
                .kind = kGraph,
                .low = 0,
                .doc = "The ProGraML graph: instructions, variables and constants joined by "
                       "control, data and call edges (a networkx MultiDiGraph in Python)."},
       .compute = ProgramlGraphObservation},
      {.spec = {.name = "ProgramlJson",
                .kind = kDict,
                .low = 0,
                .doc = "The ProGraML graph as networkx node-link JSON."},
       .compute = [](Impl& s) -> StatusOr<Observation> {
         return Observation(Json{
             observations::ProgramlToNodeLinkJson(observations::BuildProgramlGraph(*s.module))});
       }},
      {.spec = {.name = "IrInstructionCount",
                .dtype = DType::kInt64,
                .low = 0,
                .doc = "Instructions in the module."},
       .compute = [](Impl& s) -> StatusOr<Observation> {
         return Observation(IrInstructionCount(*s.module));
       }},
      {.spec = {.name = "IrInstructionCountO0",
                .dtype = DType::kInt64,
                .low = 0,
                .doc = "Instructions after LLVM's default<O0> pipeline on the benchmark."},
       .compute = BaselineOf<OptLevel::kO0, CostKind::kIrInstructionCount>},
      {.spec = {.name = "IrInstructionCountO3",
                .dtype = DType::kInt64,
                .low = 0,
                .doc = "Instructions after LLVM's default<O3> pipeline on the benchmark."},
       .compute = BaselineOf<OptLevel::kO3, CostKind::kIrInstructionCount>},
      {.spec = {.name = "IrInstructionCountOz",
                .dtype = DType::kInt64,
                .low = 0,
                .doc = "Instructions after LLVM's default<Oz> pipeline on the benchmark."},
       .compute = BaselineOf<OptLevel::kOz, CostKind::kIrInstructionCount>},
      {.spec = {.name = "ObjectTextSizeBytes",
                .dtype = DType::kInt64,
                .low = 0,
                .platform_dependent = true,
                .doc = "Bytes of .text in the object file generated in process for the host."},
       .compute = ObjectTextSize},
      {.spec = {.name = "ObjectTextSizeO0",
                .dtype = DType::kInt64,
                .low = 0,
                .platform_dependent = true,
                .doc = "ObjectTextSizeBytes after default<O0>."},
       .compute = BaselineOf<OptLevel::kO0, CostKind::kObjectTextSize>},
      {.spec = {.name = "ObjectTextSizeO3",
                .dtype = DType::kInt64,
                .low = 0,
                .platform_dependent = true,
                .doc = "ObjectTextSizeBytes after default<O3>."},
       .compute = BaselineOf<OptLevel::kO3, CostKind::kObjectTextSize>},
      {.spec = {.name = "ObjectTextSizeOz",
                .dtype = DType::kInt64,
                .low = 0,
                .platform_dependent = true,
                .doc = "ObjectTextSizeBytes after default<Oz>."},
       .compute = BaselineOf<OptLevel::kOz, CostKind::kObjectTextSize>},
      {.spec = {.name = "TextSizeBytes",
                .dtype = DType::kInt64,
                .low = 0,
                .platform_dependent = true,
                .doc = "Bytes of .text in the linked executable when the benchmark is buildable, "
                       "else ObjectTextSizeBytes."},
       .compute = TextSize},
      {.spec = {.name = "TextSizeO0",
                .dtype = DType::kInt64,
                .low = 0,
                .platform_dependent = true,
                .doc = "TextSizeBytes after default<O0>."},
       .compute = BaselineOf<OptLevel::kO0, CostKind::kTextSize>},
      {.spec = {.name = "TextSizeO3",
                .dtype = DType::kInt64,
                .low = 0,
                .platform_dependent = true,
                .doc = "TextSizeBytes after default<O3>."},
       .compute = BaselineOf<OptLevel::kO3, CostKind::kTextSize>},
      {.spec = {.name = "TextSizeOz",
                .dtype = DType::kInt64,
                .low = 0,
                .platform_dependent = true,
                .doc = "TextSizeBytes after default<Oz>."},
       .compute = BaselineOf<OptLevel::kOz, CostKind::kTextSize>},
      // Timings: a variable number of float64 seconds, measured (so not deterministic) here.
      {.spec = {.name = "Buildtime",
                .kind = kVector,
                .dtype = DType::kFloat64,
                .shape = {-1},
                .low = 0,
                .deterministic = false,
                .platform_dependent = true,
                .doc = "Seconds to build the executable from the module (code generation and "
                       "linking): one value, or none when the benchmark is not buildable."},
       .compute = Buildtime},
      {.spec = {.name = "Runtime",
                .kind = kVector,
                .dtype = DType::kFloat64,
                .shape = {-1},
                .low = 0,
                .deterministic = false,
                .platform_dependent = true,
                .doc = "Wall-clock seconds of each measured run of the executable (after the "
                       "warm-up runs), measured once per module state; empty when the "
                       "benchmark is not runnable."},
       .compute = Runtime},
      {.spec = {.name = "RuntimeO0",
                .dtype = DType::kFloat64,
                .low = 0,
                .deterministic = false,
                .platform_dependent = true,
                .doc = "Median seconds of the benchmark's program after default<O0>, measured "
                       "once per benchmark: C0 of the Runtime reward; NaN when the benchmark "
                       "is not runnable."},
       .compute = RuntimeO0},
      // Both platform dependent, as in CompilerGym: whether a program links (the default of
      // a user program's runnable) depends on the host's libraries and tools.
      {.spec = {.name = "IsBuildable",
                .dtype = DType::kBool,
                .low = 0,
                .high = 1,
                .platform_dependent = true,
                .doc = "Whether the benchmark can be linked into an executable."},
       .compute = [](Impl& s) -> StatusOr<Observation> {
         return Observation(s.benchmark->benchmark().buildable);
       }},
      {.spec = {.name = "IsRunnable",
                .dtype = DType::kBool,
                .low = 0,
                .high = 1,
                .platform_dependent = true,
                .doc = "Whether the benchmark's executable can be run."},
       .compute = [](Impl& s) -> StatusOr<Observation> {
         return Observation(s.benchmark->benchmark().runnable);
       }},
      {.spec = {.name = "CpuInfo",
                .kind = kDict,
                .low = 0,
                .platform_dependent = true,
                .doc = "The host CPU: name, cores_count and each cache level's size in "
                       "bytes (-1 when absent) and count."},
       .compute = [](Impl&) -> StatusOr<Observation> {
         static const std::string info = CpuInfoJson().dump();
         return Observation(Json{info});
       }},
      {.spec = {.name = "LexedIr",
                .kind = kDict,
                .low = 0,
                .doc = "The IR's tokens from LLVM's lexer: token_id (lltok::Kind), token_kind, "
                       "token_category and token_value, as parallel lists."},
       .compute = [](Impl& s) -> StatusOr<Observation> {
         ASSIGN_OR_RETURN(observations::LexedIr lexed,
                          observations::LexIr(ModuleToText(*s.module)));
         return Observation(Json{observations::LexedIrToJson(lexed)});
       }},
  };
  return rows;
}

// The cost-based rewards: three costs, four formulas each, CompilerGym's: the cost's change, and
// that change over the starting cost, over what -O3 saves and over what -Oz saves.
std::vector<RewardSpec> RewardTable() {
  struct Cost {
    const char* reward_prefix;
    const char* delta_name;
    const char* observation;
    const char* baseline_prefix;
    bool platform_dependent;
  };
  const Cost costs[] = {
      {"IrInstructionCount", "IrInstructionCount", "IrInstructionCount", "IrInstructionCount",
       false},
      {"ObjectTextSize", "ObjectTextSizeBytes", "ObjectTextSizeBytes", "ObjectTextSize", true},
      {"TextSize", "TextSizeBytes", "TextSizeBytes", "TextSize", true},
  };
  std::vector<RewardSpec> rows;
  for (const Cost& c : costs) {
    const std::string o0 = std::string(c.baseline_prefix) + "O0";
    const RewardSpec delta = {.name = c.delta_name,
                              .cost_observation = c.observation,
                              .initial_observation = o0,
                              .platform_dependent = c.platform_dependent,
                              .doc = "prev - C, C = " + std::string(c.observation)};
    rows.push_back(delta);
    RewardSpec norm = delta;
    norm.name = std::string(c.reward_prefix) + "Norm";
    norm.kind = RewardKind::kNormByInitial;
    norm.doc = "(prev - C) / C0";
    rows.push_back(norm);
    for (const char* level : {"O3", "Oz"}) {
      RewardSpec relative = delta;
      relative.name = std::string(c.reward_prefix) + level;
      relative.kind = RewardKind::kNormByBaseline;
      relative.baseline_observation = std::string(c.baseline_prefix) + level;
      relative.doc = "(prev - C) / max(C0 - C_" + std::string(level) + ", 1)";
      // An episode whose reward reaches 1 has saved as much as -Oz does (CompilerGym's).
      if (std::string_view(level) == "Oz") relative.success_threshold = 1.0;
      rows.push_back(relative);
    }
  }
  // Runtime is a vector of runs; as a cost it is their median (Env::ScalarObservation).
  rows.push_back({.name = "Runtime",
                  .cost_observation = "Runtime",
                  .initial_observation = "RuntimeO0",
                  .deterministic = false,
                  .platform_dependent = true,
                  .doc = "previous median runtime - current median runtime, in seconds"});
  return rows;
}

}  // namespace compiler_gym::llvm_env
