// The LLVM family's observation and reward spaces: a table row per space, with the functions
// that compute observations from an env's module, baselines and runs.
#include <array>
#include <limits>

#include "envs/llvm/llvm_env_impl.h"

namespace compiler_gym::llvm_env {

namespace {

using Impl = LlvmEnv::Impl;

constexpr double kInf = std::numeric_limits<double>::infinity();

SpaceSpec Scalar(std::string name, DType dtype, double low, double high, bool deterministic,
                 bool platform_dependent, std::string doc) {
  return SpaceSpec{std::move(name), SpaceKind::kScalar, dtype,         {}, low, high,
                   deterministic,   platform_dependent, std::move(doc)};
}

// Timings: a variable number of float64 seconds, measured (so not deterministic) on this host.
SpaceSpec Measurements(std::string name, std::string doc) {
  return SpaceSpec{std::move(name), SpaceKind::kVector, DType::kFloat64, {-1}, 0, kInf, false, true,
                   std::move(doc)};
}

template <size_t N>
std::vector<int64_t> ToVector(const std::array<int64_t, N>& a) {
  return std::vector<int64_t>(a.begin(), a.end());
}

StatusOr<Observation> Baseline(Impl& s, OptLevel level, CostKind cost) {
  ASSIGN_OR_RETURN(int64_t value, s.benchmark->Baseline(level, cost));
  return Observation(value);
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
  ASSIGN_OR_RETURN(ProgramRuns runs, s.benchmark->ReferenceRun(s.run_config));
  return Observation(Median(runs.runtimes));
}

nlohmann::ordered_json CpuInfoJson() {
  nlohmann::ordered_json info;
  info["name"] = llvm::sys::getHostCPUName().str();
  info["cores_count"] = std::thread::hardware_concurrency();
  // Cache sizes from sysfs (bytes); absent levels are -1, as CompilerGym reports them.
  for (const char* key :
       {"l1i_cache_size", "l1d_cache_size", "l2_cache_size", "l3_cache_size", "l4_cache_size"}) {
    info[key] = -1;
  }
  for (int index = 0; index < 8; ++index) {
    const std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    auto read = [&](const char* file) -> std::string {
      // sysfs reports a size of 4096 for every file: read it as a stream.
      auto buffer = llvm::MemoryBuffer::getFileAsStream(dir + file);
      return buffer ? (*buffer)->getBuffer().trim().str() : "";
    };
    const std::string level = read("level"), type = read("type"), size = read("size");
    if (level.empty() || size.empty()) continue;
    int64_t bytes = std::atoll(size.c_str());
    if (size.back() == 'K') bytes *= 1024;
    if (size.back() == 'M') bytes *= 1024 * 1024;
    std::string key = "l" + level;
    if (level == "1") key += type == "Instruction" ? "i" : "d";
    info[key + "_cache_size"] = bytes;
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

SpaceSpec JsonSpace(std::string name, std::string doc) {
  return SpaceSpec{std::move(name), SpaceKind::kDict, DType::kNone, {}, 0, kInf, true,
                   false,           std::move(doc)};
}

}  // namespace

const std::vector<ObservationRow>& ObservationTable() {
  using observations::kAutophaseNumFeatures;
  using observations::kInstCountNumFeatures;
  static const std::vector<ObservationRow> rows = {
      {{"Ir",
        SpaceKind::kText,
        DType::kNone,
        {-1},
        0,
        kInf,
        true,
        false,
        "The module as LLVM text IR."},
       [](Impl& s) -> StatusOr<Observation> { return Observation(Text{ModuleToText(*s.module)}); },
       true},
      {{"IrSha1",
        SpaceKind::kText,
        DType::kNone,
        {40},
        0,
        kInf,
        true,
        false,
        "40 hex digits: SHA-1 of the module's bitcode; changes iff the module changes."},
       [](Impl& s) -> StatusOr<Observation> { return Observation(Text{ModuleSha1(*s.module)}); },
       true},
      {{"Bitcode",
        SpaceKind::kBytes,
        DType::kUint8,
        {-1},
        0,
        255,
        true,
        false,
        "The module as LLVM bitcode."},
       [](Impl& s) -> StatusOr<Observation> {
         return Observation(Bytes{ModuleToBitcode(*s.module)});
       },
       true},
      {{"BitcodeFile",
        SpaceKind::kText,
        DType::kNone,
        {-1},
        0,
        kInf,
        false,
        false,
        "Path of a bitcode file holding the module, valid until the next step or reset."},
       [](Impl& s) -> StatusOr<Observation> {
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
       },
       false},
      {{"InstCount",
        SpaceKind::kVector,
        DType::kInt64,
        {kInstCountNumFeatures},
        0,
        kInf,
        true,
        false,
        "70 counts: TotalInsts, TotalBlocks, TotalFuncs, then one per opcode."},
       [](Impl& s) -> StatusOr<Observation> {
         return Observation(ToVector(observations::ComputeInstCount(*s.module)));
       },
       true},
      {{"InstCountDict",
        SpaceKind::kDict,
        DType::kInt64,
        {kInstCountNumFeatures},
        0,
        kInf,
        true,
        false,
        "InstCount as a dict keyed <feature>Count."},
       [](Impl& s) -> StatusOr<Observation> {
         const auto counts = observations::ComputeInstCount(*s.module);
         return Observation(
             Json{NamedCounts(observations::InstCountFeatureNames(), "Count", counts).dump()});
       },
       true},
      {{"InstCountNorm",
        SpaceKind::kVector,
        DType::kFloat32,
        {kInstCountNumFeatures - 1},
        0,
        1,
        true,
        false,
        "InstCount[1:] / max(InstCount[0], 1)."},
       [](Impl& s) -> StatusOr<Observation> {
         return Observation(observations::InstCountNorm(observations::ComputeInstCount(*s.module)));
       },
       true},
      {{"InstCountNormDict",
        SpaceKind::kDict,
        DType::kFloat32,
        {kInstCountNumFeatures - 1},
        0,
        1,
        true,
        false,
        "InstCountNorm as a dict keyed <feature>Density."},
       [](Impl& s) -> StatusOr<Observation> {
         const auto norm = observations::InstCountNorm(observations::ComputeInstCount(*s.module));
         return Observation(
             Json{NamedCounts(observations::InstCountFeatureNames(), "Density", norm, 1).dump()});
       },
       true},
      {{"Autophase",
        SpaceKind::kVector,
        DType::kInt64,
        {kAutophaseNumFeatures},
        0,
        kInf,
        true,
        false,
        "56 Autophase features (Huang et al. 2019)."},
       [](Impl& s) -> StatusOr<Observation> {
         return Observation(ToVector(observations::ComputeAutophase(*s.module)));
       },
       true},
      {{"AutophaseDict",
        SpaceKind::kDict,
        DType::kInt64,
        {kAutophaseNumFeatures},
        0,
        kInf,
        true,
        false,
        "Autophase as a dict keyed by feature name."},
       [](Impl& s) -> StatusOr<Observation> {
         const auto values = observations::ComputeAutophase(*s.module);
         return Observation(
             Json{NamedCounts(observations::AutophaseFeatureNames(), "", values).dump()});
       },
       true},
      {JsonSpace("Inst2vecPreprocessedText",
                 "inst2vec statements of the module (global variables, then instructions), "
                 "normalized: identifiers <%ID>/<@ID>, literals <INT>/<FLOAT>/<STRING>, branch "
                 "targets <LABEL>, named structs inlined, metadata and attributes cut."),
       [](Impl& s) -> StatusOr<Observation> {
         return Observation(Json{DumpJson(observations::Inst2vecPreprocess(*s.module))});
       },
       true},
      {{"Inst2vecEmbeddingIndices",
        SpaceKind::kRagged,
        DType::kInt64,
        {-1},
        0,
        kInf,
        true,
        false,
        "The inst2vec vocabulary id of each statement; unknown statements get the last id "
        "(the vocabulary size)."},
       [](Impl& s) -> StatusOr<Observation> {
         ASSIGN_OR_RETURN(const observations::Inst2vecModel* model,
                          observations::Inst2vecModelData());
         return Observation(Inst2vecIndices(s, *model));
       },
       true},
      {{"Inst2vec",
        SpaceKind::kRagged,
        DType::kFloat32,
        {-1, observations::kInst2vecDim},
        -kInf,
        kInf,
        true,
        false,
        "The 200-d inst2vec embedding of each statement (the project's own trained table)."},
       Inst2vecEmbeddings,
       true},
      {{"Programl",
        SpaceKind::kGraph,
        DType::kNone,
        {},
        0,
        kInf,
        true,
        false,
        "The ProGraML graph: instructions, variables and constants joined by control, data and "
        "call edges (a networkx MultiDiGraph in Python)."},
       ProgramlGraphObservation,
       true},
      {JsonSpace("ProgramlJson", "The ProGraML graph as networkx node-link JSON."),
       [](Impl& s) -> StatusOr<Observation> {
         return Observation(Json{
             observations::ProgramlToNodeLinkJson(observations::BuildProgramlGraph(*s.module))});
       },
       true},
      {Scalar("IrInstructionCount", DType::kInt64, 0, kInf, true, false,
              "Instructions in the module."),
       [](Impl& s) -> StatusOr<Observation> { return Observation(IrInstructionCount(*s.module)); },
       true},
      {Scalar("IrInstructionCountO0", DType::kInt64, 0, kInf, true, false,
              "Instructions after LLVM's default<O0> pipeline on the benchmark."),
       [](Impl& s) { return Baseline(s, OptLevel::kO0, CostKind::kIrInstructionCount); }, true},
      {Scalar("IrInstructionCountO3", DType::kInt64, 0, kInf, true, false,
              "Instructions after LLVM's default<O3> pipeline on the benchmark."),
       [](Impl& s) { return Baseline(s, OptLevel::kO3, CostKind::kIrInstructionCount); }, true},
      {Scalar("IrInstructionCountOz", DType::kInt64, 0, kInf, true, false,
              "Instructions after LLVM's default<Oz> pipeline on the benchmark."),
       [](Impl& s) { return Baseline(s, OptLevel::kOz, CostKind::kIrInstructionCount); }, true},
      {Scalar("ObjectTextSizeBytes", DType::kInt64, 0, kInf, true, true,
              "Bytes of .text in the object file generated in process for the host."),
       ObjectTextSize, true},
      {Scalar("ObjectTextSizeO0", DType::kInt64, 0, kInf, true, true,
              "ObjectTextSizeBytes after default<O0>."),
       [](Impl& s) { return Baseline(s, OptLevel::kO0, CostKind::kObjectTextSize); }, true},
      {Scalar("ObjectTextSizeO3", DType::kInt64, 0, kInf, true, true,
              "ObjectTextSizeBytes after default<O3>."),
       [](Impl& s) { return Baseline(s, OptLevel::kO3, CostKind::kObjectTextSize); }, true},
      {Scalar("ObjectTextSizeOz", DType::kInt64, 0, kInf, true, true,
              "ObjectTextSizeBytes after default<Oz>."),
       [](Impl& s) { return Baseline(s, OptLevel::kOz, CostKind::kObjectTextSize); }, true},
      {Scalar("TextSizeBytes", DType::kInt64, 0, kInf, true, true,
              "Bytes of .text in the linked executable when the benchmark is buildable, else "
              "ObjectTextSizeBytes."),
       TextSize, true},
      {Scalar("TextSizeO0", DType::kInt64, 0, kInf, true, true, "TextSizeBytes after default<O0>."),
       [](Impl& s) { return Baseline(s, OptLevel::kO0, CostKind::kTextSize); }, true},
      {Scalar("TextSizeO3", DType::kInt64, 0, kInf, true, true, "TextSizeBytes after default<O3>."),
       [](Impl& s) { return Baseline(s, OptLevel::kO3, CostKind::kTextSize); }, true},
      {Scalar("TextSizeOz", DType::kInt64, 0, kInf, true, true, "TextSizeBytes after default<Oz>."),
       [](Impl& s) { return Baseline(s, OptLevel::kOz, CostKind::kTextSize); }, true},
      {Measurements("Buildtime",
                    "Seconds to build the executable from the module (code generation and "
                    "linking): one value, or none when the benchmark is not buildable."),
       Buildtime, true},
      {Measurements("Runtime",
                    "Wall-clock seconds of each measured run of the executable (after the "
                    "warm-up runs), measured once per module state; empty when the benchmark "
                    "is not runnable."),
       Runtime, true},
      {Scalar("RuntimeO0", DType::kFloat64, 0, kInf, false, true,
              "Median seconds of the benchmark's program after default<O0>, measured once per "
              "benchmark: C0 of the Runtime reward."),
       RuntimeO0, true},
      {Scalar("IsBuildable", DType::kBool, 0, 1, true, false,
              "Whether the benchmark can be linked into an executable."),
       [](Impl& s) -> StatusOr<Observation> {
         return Observation(s.benchmark->benchmark().buildable);
       },
       true},
      {Scalar("IsRunnable", DType::kBool, 0, 1, true, false,
              "Whether the benchmark's executable can be run."),
       [](Impl& s) -> StatusOr<Observation> {
         return Observation(s.benchmark->benchmark().runnable);
       },
       true},
      {{"CpuInfo",
        SpaceKind::kDict,
        DType::kNone,
        {},
        0,
        kInf,
        true,
        true,
        "The host CPU: name, cores_count and cache sizes in bytes (-1 when absent)."},
       [](Impl&) -> StatusOr<Observation> {
         static const std::string info = CpuInfoJson().dump();
         return Observation(Json{info});
       },
       true},
      {JsonSpace("LexedIr",
                 "The IR's tokens from LLVM's lexer: token_id (lltok::Kind), token_kind, "
                 "token_category and token_value, as parallel lists."),
       [](Impl& s) -> StatusOr<Observation> {
         ASSIGN_OR_RETURN(observations::LexedIr lexed,
                          observations::LexIr(ModuleToText(*s.module)));
         return Observation(Json{observations::LexedIrToJson(lexed)});
       },
       true},
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
    auto row = [&](std::string name, RewardKind kind, std::string baseline, double low,
                   std::string doc) {
      rows.push_back(RewardSpec{std::move(name), c.observation, o0, std::move(baseline), kind, true,
                                c.platform_dependent, low, kInf, std::move(doc)});
    };
    row(c.delta_name, RewardKind::kDelta, "", -kInf, "prev - C, C = " + std::string(c.observation));
    row(std::string(c.reward_prefix) + "Norm", RewardKind::kNormByInitial, "", -kInf,
        "(prev - C) / C0");
    row(std::string(c.reward_prefix) + "O3", RewardKind::kNormByBaseline,
        std::string(c.baseline_prefix) + "O3", -kInf, "(prev - C) / max(C0 - C_O3, 1)");
    row(std::string(c.reward_prefix) + "Oz", RewardKind::kNormByBaseline,
        std::string(c.baseline_prefix) + "Oz", -kInf, "(prev - C) / max(C0 - C_Oz, 1)");
  }
  // Runtime is a vector of runs; as a cost it is their median (Env::ScalarObservation).
  rows.push_back(RewardSpec{"Runtime", "Runtime", "RuntimeO0", "", RewardKind::kDelta, false, true,
                            -kInf, kInf,
                            "previous median runtime - current median runtime, in seconds"});
  return rows;
}

}  // namespace compiler_gym::llvm_env
