#include "envs/llvm/llvm_env.h"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <tuple>

#include "engine/sandbox.h"
#include "envs/llvm/benchmark_cache.h"
#include "envs/llvm/codegen.h"
#include "envs/llvm/module_prefetch.h"
#include "envs/llvm/module_state.h"
#include "envs/llvm/module_util.h"
#include "envs/llvm/passes.h"
#include "envs/llvm/runtime.h"
#ifdef CG_TEST_HOOKS
#include "envs/llvm/test_passes.h"
#endif
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "observations/autophase.h"
#include "observations/inst2vec.h"
#include "observations/instcount.h"
#include "observations/lexed_ir.h"
#include "observations/programl.h"
#include "observations/vocabulary.h"

namespace compiler_gym::llvm_env {

// ---------------------------------------------------------------------------------------------
// Per-env state.

struct LlvmEnv::Impl {
  std::shared_ptr<CachedBenchmark> benchmark;
  // The episode's own context and module. A context per episode also means that passes which
  // mutate context-owned state (-strip-nondebug renames struct types) cannot leak into the next
  // episode.
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  // The next episode's copy of the benchmark, parsed in the background while this one runs.
  std::future<StatusOr<ModuleCopy>> next;
  std::shared_ptr<CachedBenchmark> next_benchmark;

  // Pass infrastructure, kept across steps so analyses survive between passes.
  std::unique_ptr<llvm::TargetMachine> tm;
  std::unique_ptr<llvm::PassBuilder> pb;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;

  // Observations of the current module, dropped whenever the module changes.
  std::vector<std::optional<Observation>> cache;
  // The current module's fingerprint, computed before the first step of a module; each step
  // compares the module against it, whatever the pass reported.
  std::optional<ModuleFingerprint> fingerprint;
  FingerprintCache fingerprint_cache;  // of the current module; cleared when it is replaced
  // Its object file (with the seconds code generation took) and linked executable, shared by
  // the size, build and run observations; dropped likewise.
  std::optional<std::string> object;
  double object_seconds = 0;
  std::unique_ptr<Executable> executable;
  RunConfig run_config;
#ifdef CG_TEST_HOOKS
  // Test hook (kNextStepPipelineParameter): the pipeline the next action runs instead.
  std::string next_step_pipeline;
#endif
  std::string workdir;  // for BitcodeFile; removed with the env
  // The process that made `workdir`. A worker process that forks itself to fork its env
  // (engine/worker.h) copies this state: the copy must neither use nor remove the original's.
  pid_t workdir_owner = 0;

  ~Impl() {
    ClearAnalyses();
    RetireModule();
    if (!workdir.empty() && workdir_owner == ::getpid()) {
      (void)llvm::sys::fs::remove_directories(workdir);
    }
  }

  // Hands the current module and context to the background worker for destruction. Analyses
  // must have been cleared: they point into the module.
  void RetireModule() {
    ModuleCopy old;
    old.context = std::move(context);
    old.module = std::move(module);
    DestroyInBackground(std::move(old));
  }

  void ClearAnalyses() {
    // Results are keyed by IR unit pointers: drop them before the module they describe goes.
    lam.clear();
    cgam.clear();
    fam.clear();
    mam.clear();
  }

  void Invalidate() {
    cache.assign(LlvmEnvSpec().observation_spaces.size(), std::nullopt);
    fingerprint.reset();
    object.reset();
    executable.reset();
  }

  StatusOr<const std::string*> ObjectFile() {
    if (!object) {
      const auto start = std::chrono::steady_clock::now();
      ASSIGN_OR_RETURN(std::string bytes, EmitObject(*module));
      object_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      object = std::move(bytes);
    }
    return &*object;
  }

  StatusOr<const Executable*> GetExecutable() {
    if (executable && !executable->owned_here()) executable.reset();  // see owned_here()
    if (!benchmark->benchmark().buildable) {
      return FailedPrecondition(benchmark->benchmark().uri + " is not buildable");
    }
    if (!executable) {
      ASSIGN_OR_RETURN(const std::string* bytes, ObjectFile());
      ASSIGN_OR_RETURN(executable, LinkExecutable(*bytes, benchmark->benchmark(), object_seconds));
    }
    return executable.get();
  }

  Status InitPassInfrastructure() {
    ASSIGN_OR_RETURN(tm, CreateTargetMachine(*module));
    ClearAnalyses();
    lam = llvm::LoopAnalysisManager();
    fam = llvm::FunctionAnalysisManager();
    cgam = llvm::CGSCCAnalysisManager();
    mam = llvm::ModuleAnalysisManager();
    pb = std::make_unique<llvm::PassBuilder>(tm.get());
    pb->registerModuleAnalyses(mam);
    pb->registerCGSCCAnalyses(cgam);
    pb->registerFunctionAnalyses(fam);
    pb->registerLoopAnalyses(lam);
    pb->crossRegisterProxies(lam, fam, cgam, mam);
#ifdef CG_TEST_HOOKS
    pb->registerPipelineParsingCallback(
        [](llvm::StringRef name, llvm::ModulePassManager& mpm,
           llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) { return AddTestPass(name, mpm); });
#endif
    return Status::Ok();
  }

  // After a pass that changed the module (by its fingerprint, not by its word): verifies what
  // changed: the changed functions, or the whole module when anything outside function bodies
  // changed.
  Status VerifyChanged(const ModuleFingerprint& before, const ModuleFingerprint& after) {
    if (before.module != after.module) return VerifyModule(*module);
    // The same function list: fingerprint entries follow the module's functions in order.
    const std::vector<size_t> changed = ChangedFunctions(before, after);
    auto next = changed.begin();
    size_t index = 0;
    for (llvm::Function& function : *module) {
      if (next == changed.end()) break;
      if (index++ != *next) continue;
      ++next;
      std::string message;
      llvm::raw_string_ostream os(message);
      if (llvm::verifyFunction(function, &os)) {
        return FailedPrecondition("function " + function.getName().str() +
                                  " does not verify: " + os.str().substr(0, 2000));
      }
    }
    return Status::Ok();
  }

  // A new pass manager is built for every step: pass objects are built for one run, and some
  // keep state across runs (e.g. -deadargelim's liveness maps, which then point at deleted
  // functions), so reusing them crashes on a later module. Parsing costs under a microsecond.
  bool RunPipelineStep(const std::string& pipeline, const std::string& name, StepOutcome& outcome);

  StatusOr<std::string> Workdir() {
    if (workdir.empty() || workdir_owner != ::getpid()) {
      ASSIGN_OR_RETURN(workdir, MakeTempDir("compiler_gym-env"));
      workdir_owner = ::getpid();
    }
    return workdir;
  }
};

// ---------------------------------------------------------------------------------------------
// Observation table. One row per space: its spec and the function computing it.

namespace {

using Impl = LlvmEnv::Impl;
using ComputeFn = StatusOr<Observation> (*)(Impl&);

struct ObservationRow {
  SpaceSpec spec;
  ComputeFn compute;
  bool cacheable;  // a pure function of the current module
};

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

}  // namespace

const EnvSpec& LlvmEnvSpec() {
  static const EnvSpec spec = [] {
    EnvSpec s;
    s.family = "llvm";
    s.compiler_version = LLVM_VERSION_STRING;
    ActionSpaceSpec passes{"PassesAll", {}, "One LLVM 19 pass per action (see PASSES.md)."};
    for (const PassRow& row : PassTable()) passes.action_names.push_back(row.flag);
    s.action_spaces.push_back(std::move(passes));
    for (const ObservationRow& row : ObservationTable()) s.observation_spaces.push_back(row.spec);
    s.reward_spaces = RewardTable();
    return s;
  }();
  return spec;
}

// ---------------------------------------------------------------------------------------------
// LlvmEnv.

LlvmEnv::LlvmEnv() : impl_(std::make_unique<Impl>()) {
  // Enables unwinding out of crashing passes (signals and LLVM fatal errors) for every env.
  static std::once_flag once;
  std::call_once(once, [] { llvm::CrashRecoveryContext::Enable(); });
}
LlvmEnv::~LlvmEnv() = default;

Status LlvmEnv::DoReset(const Benchmark& benchmark) {
  ASSIGN_OR_RETURN(std::shared_ptr<CachedBenchmark> cached, GetCachedBenchmark(benchmark));
  Impl& s = *impl_;
  ModuleCopy fresh;
  if (s.next.valid() && s.next_benchmark == cached) {
    ASSIGN_OR_RETURN(fresh, s.next.get());
  } else {
    s.next = {};  // a copy of another benchmark; the worker destroys it
    ASSIGN_OR_RETURN(fresh, MakeModuleCopy(*cached));
  }
  s.ClearAnalyses();
  s.RetireModule();
  s.fingerprint_cache.bodies.clear();
  s.context = std::move(fresh.context);
  s.module = std::move(fresh.module);
  if (cached != s.benchmark || !s.pb) {
    s.benchmark = cached;
    RETURN_IF_ERROR(s.InitPassInfrastructure());
  }
  s.next = PrefetchModuleCopy(cached);
  s.next_benchmark = cached;
  s.Invalidate();
  return Status::Ok();
}

// Runs one module-level pipeline on the working module; `name` is what errors call it.
// Returns false when the episode ended (outcome says why).
bool LlvmEnv::Impl::RunPipelineStep(const std::string& pipeline, const std::string& name,
                                    StepOutcome& outcome) {
  auto mpm = std::make_unique<llvm::ModulePassManager>();
  if (auto err = pb->parsePassPipeline(*mpm, pipeline)) {
    outcome.done = true;
    outcome.error = Internal("cannot build pass " + name + ": " + llvm::toString(std::move(err)));
    return false;
  }
  if (!fingerprint) fingerprint = Fingerprint(*module, &fingerprint_cache);
  llvm::CrashRecoveryContext crc;
  // A crash or fatal error inside the pass unwinds to here instead of killing the process.
  const auto start = std::chrono::steady_clock::now();
  const bool ok = crc.RunSafely([&] { (void)mpm->run(*module, mam); });
  outcome.compute_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!ok) {
    // The module, the analyses and the context may be half-modified: freed crash-contained,
    // analyses before the IR they point into. The next reset starts from a new context.
    auto analyses =
        std::make_unique<std::tuple<llvm::LoopAnalysisManager, llvm::FunctionAnalysisManager,
                                    llvm::CGSCCAnalysisManager, llvm::ModuleAnalysisManager>>(
            std::move(lam), std::move(fam), std::move(cgam), std::move(mam));
    lam = llvm::LoopAnalysisManager();
    fam = llvm::FunctionAnalysisManager();
    cgam = llvm::CGSCCAnalysisManager();
    mam = llvm::ModuleAnalysisManager();
    FreeAfterCrash(analyses, mpm, module, context);
    pb.reset();
    benchmark.reset();
    outcome.done = true;
    outcome.error = Crash("pass " + name + " crashed");
    return false;
  }
  // Every step starts from no cached analysis. An analysis that passes kept up to date
  // incrementally (MemorySSA, the dominator tree) is not the one a fresh computation builds,
  // and passes read its order: -gvn-hoist after -early-cse-memssa and -memcpyopt hoisted
  // differently in an env than in its fork, which computes analyses afresh. So the state of
  // an env is its module alone, which a fork, a replay and a new episode all reproduce.
  ClearAnalyses();
  // Whether the module changed is read off the module itself: passes do not always keep
  // LLVM's contract (a pass that changed the IR does not report all analyses preserved).
  const auto verify_start = std::chrono::steady_clock::now();
  Canonicalize(*module);
  ModuleFingerprint after = Fingerprint(*module, &fingerprint_cache);
  if (after == *fingerprint) {
    outcome.verify_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - verify_start).count();
    return true;
  }
  outcome.action_had_no_effect = false;
  const ModuleFingerprint before = std::move(*fingerprint);
  Invalidate();
  Status verified = VerifyChanged(before, after);
  fingerprint = std::move(after);
  outcome.verify_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - verify_start).count();
  if (!verified.ok()) {
    outcome.done = true;
    outcome.error = Internal("after pass " + name + ": " + verified.message());
    return false;
  }
  return true;
}

StatusOr<StepOutcome> LlvmEnv::DoStep(std::span<const int> actions) {
  StepOutcome outcome;
  outcome.actions_applied = 0;
  for (int action : actions) {
    const PassRow& row = PassTable()[action];
    ++outcome.actions_applied;
#ifdef CG_TEST_HOOKS
    const std::string injected = std::exchange(impl_->next_step_pipeline, "");
    if (!injected.empty()) {
      if (!impl_->RunPipelineStep(injected, injected, outcome)) break;
      continue;
    }
#endif
    if (!impl_->RunPipelineStep(row.pipeline, row.flag, outcome)) break;
  }
  return outcome;
}

#ifdef CG_TEST_HOOKS
StatusOr<StepOutcome> LlvmEnv::StepPipelineForTesting(const std::string& pipeline) {
  if (!in_episode() || !impl_->module) return NoEpisode("no episode in progress");
  StepOutcome outcome;
  impl_->RunPipelineStep(pipeline, pipeline, outcome);
  return outcome;
}
#endif

StatusOr<Observation> LlvmEnv::Observe(int index) {
  const auto& table = ObservationTable();
  if (index < 0 || index >= static_cast<int>(table.size())) {
    return InvalidArgument("unknown observation space index " + std::to_string(index));
  }
  Impl& s = *impl_;
  if (!in_episode()) return NoEpisode("observation requested before reset()");
  if (!s.module) return NoEpisode("the episode ended with an error; call reset()");
  const ObservationRow& row = table[index];
  if (row.cacheable && s.cache[index]) return *s.cache[index];
  ASSIGN_OR_RETURN(Observation value, row.compute(s));
  if (row.cacheable) s.cache[index] = value;
  return value;
}

StatusOr<std::unique_ptr<Env>> LlvmEnv::DoFork() {
  const Impl& s = *impl_;
  if (!s.module) return NoEpisode("cannot fork an env whose episode ended in an error");
  auto copy = std::make_unique<LlvmEnv>();
  Impl& c = *copy->impl_;
  c.benchmark = s.benchmark;
  c.context = NewContext();
  // Modules cannot be cloned across contexts: go through bitcode, keeping use-list order so
  // that the copy steps exactly like the original.
  ASSIGN_OR_RETURN(c.module,
                   ParseModule(ModuleToBitcode(*s.module, /*preserve_use_list_order=*/true), "fork",
                               *c.context));
  // What bitcode does not hold but passes read: how many names were made unique.
  (void)CopyNameCounters(*s.module, *c.module);
  RETURN_IF_ERROR(c.InitPassInfrastructure());
  c.cache = s.cache;
  c.run_config = s.run_config;
  return std::unique_ptr<Env>(std::move(copy));
}

namespace {

struct LlvmSnapshot : EnvSnapshot {
  std::string bitcode;
  ModuleCopy names;  // the module parsed from `bitcode`, with the original's name counters
};

}  // namespace

StatusOr<std::unique_ptr<EnvSnapshot>> LlvmEnv::DoSnapshot() {
  const Impl& s = *impl_;
  if (!s.module) return NoEpisode("no module to snapshot: the episode ended");
  auto snapshot = std::make_unique<LlvmSnapshot>();
  snapshot->bitcode = ModuleToBitcode(*s.module, /*preserve_use_list_order=*/true);
  snapshot->names.context = NewContext();
  ASSIGN_OR_RETURN(snapshot->names.module,
                   ParseModule(snapshot->bitcode, "snapshot", *snapshot->names.context));
  (void)CopyNameCounters(*s.module, *snapshot->names.module);
  return std::unique_ptr<EnvSnapshot>(std::move(snapshot));
}

Status LlvmEnv::DoRestore(const EnvSnapshot& snapshot, bool changed) {
  const auto& saved = static_cast<const LlvmSnapshot&>(snapshot);
  Impl& s = *impl_;
  if (!changed && s.module) {
    s.ClearAnalyses();  // as a fork starts: no analysis cached
    (void)CopyNameCounters(*saved.names.module, *s.module);
    return Status::Ok();
  }
  s.ClearAnalyses();
  s.RetireModule();
  s.fingerprint_cache.bodies.clear();
  s.Invalidate();
  s.context = NewContext();
  ASSIGN_OR_RETURN(s.module, ParseModule(saved.bitcode, "restore", *s.context));
  (void)CopyNameCounters(*saved.names.module, *s.module);
  return Status::Ok();  // the fingerprint, of addresses in the old context, is recomputed
}

namespace {

// The parameters: each reads and writes one field of RunConfig.
struct ParameterRow {
  const char* name;
  std::string (*get)(const RunConfig&);
  Status (*set)(RunConfig&, double);
};

const ParameterRow kParameters[] = {
    {"runtime_observation_count", [](const RunConfig& c) { return std::to_string(c.runs); },
     [](RunConfig& c, double v) -> Status {
       if (v < 1 || v != static_cast<int>(v)) return InvalidArgument("must be an integer >= 1");
       c.runs = static_cast<int>(v);
       return Status::Ok();
     }},
    {"runtime_warmup_runs_count", [](const RunConfig& c) { return std::to_string(c.warmup_runs); },
     [](RunConfig& c, double v) -> Status {
       if (v < 0 || v != static_cast<int>(v)) return InvalidArgument("must be an integer >= 0");
       c.warmup_runs = static_cast<int>(v);
       return Status::Ok();
     }},
    {"runtime_timeout_seconds",
     [](const RunConfig& c) { return std::to_string(c.timeout_seconds); },
     [](RunConfig& c, double v) -> Status {
       if (!(v > 0)) return InvalidArgument("must be > 0");
       c.timeout_seconds = v;
       return Status::Ok();
     }},
    {"runtime_memory_bytes", [](const RunConfig& c) { return std::to_string(c.memory_bytes); },
     [](RunConfig& c, double v) -> Status {
       if (v < 0) return InvalidArgument("must be >= 0");
       c.memory_bytes = static_cast<int64_t>(v);
       return Status::Ok();
     }},
};

const ParameterRow* FindParameter(const std::string& name) {
  for (const ParameterRow& row : kParameters) {
    if (name == row.name) return &row;
  }
  return nullptr;
}

}  // namespace

Status LlvmEnv::SetParameter(const std::string& name, const std::string& value) {
#ifdef CG_TEST_HOOKS
  if (name == kNextStepPipelineParameter) {
    impl_->next_step_pipeline = value;
    return Status::Ok();
  }
#endif
  const ParameterRow* row = FindParameter(name);
  if (row == nullptr) return InvalidArgument("unknown parameter " + name);
  char* end = nullptr;
  const double number = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size()) {
    return InvalidArgument(name + ": not a number: " + value);
  }
  Status set = row->set(impl_->run_config, number);
  if (!set.ok()) return InvalidArgument(name + " " + set.message() + ", got " + value);
  // Runtime measurements depend on the run settings.
  const int runtime = LlvmEnvSpec().ObservationIndex("Runtime");
  if (!impl_->cache.empty()) impl_->cache[runtime].reset();
  return Status::Ok();
}

StatusOr<std::string> LlvmEnv::GetParameter(const std::string& name) const {
#ifdef CG_TEST_HOOKS
  if (name == kNextStepPipelineParameter) return impl_->next_step_pipeline;
#endif
  const ParameterRow* row = FindParameter(name);
  if (row == nullptr) return InvalidArgument("unknown parameter " + name);
  return row->get(impl_->run_config);
}

StatusOr<std::string> LlvmEnv::Call(const std::string& method, const std::string& argument) {
  if (method != "check_semantics") return Env::Call(method, argument);
  SemanticsOptions options;
  std::istringstream names(argument);
  for (std::string name; names >> name;) {
    if (name == "address") {
      options.address_sanitizer = true;
    } else if (name == "undefined") {
      options.undefined_sanitizer = true;
    } else {
      return InvalidArgument("unknown sanitizer " + name + " (address, undefined)");
    }
  }
  ASSIGN_OR_RETURN(std::vector<std::string> problems, CheckSemantics(options));
  return nlohmann::json(problems).dump();
}

StatusOr<std::vector<std::string>> LlvmEnv::CheckSemantics(const SemanticsOptions& options) {
  Impl& s = *impl_;
  if (!in_episode() || !s.module) return NoEpisode("no module to check: call reset()");
  const Benchmark& benchmark = s.benchmark->benchmark();
  if (!benchmark.runnable) return FailedPrecondition(benchmark.uri + " is not runnable");
  // One run each is enough to compare behaviour; timing does not matter here.
  RunConfig config = s.run_config;
  config.runs = 1;
  config.warmup_runs = 0;
  const SandboxLimits limits{.timeout_seconds = config.timeout_seconds};
  ASSIGN_OR_RETURN(ProgramRuns reference, s.benchmark->ReferenceRun(config));

  std::vector<std::string> problems;
  auto check = [&](const std::string& label, const Executable& executable, const RunConfig& run,
                   const std::vector<std::string>& env) -> Status {
    ASSIGN_OR_RETURN(ProcessResult result, RunOnce(executable, benchmark, run, env));
    for (std::string& problem : CompareRuns(reference.last, result, limits)) {
      problems.push_back(label + problem);
    }
    return Status::Ok();
  };
  ASSIGN_OR_RETURN(const Executable* executable, s.GetExecutable());
  RETURN_IF_ERROR(check("", *executable, config, {}));

  struct Sanitizer {
    bool enabled;
    const char* label;
    std::vector<std::string> flags;
    std::vector<std::string> env;
    // The frontend marks the functions a sanitizer instruments; a module built from IR needs
    // the mark added, or the sanitizer's pass skips every function.
    llvm::Attribute::AttrKind function_attribute;
  };
  const Sanitizer sanitizers[] = {
      // Leaks are not miscompilations.
      {options.address_sanitizer,
       "AddressSanitizer build: ",
       {"-fsanitize=address", "-fno-omit-frame-pointer"},
       {"ASAN_OPTIONS=detect_leaks=0"},
       llvm::Attribute::SanitizeAddress},
      {options.undefined_sanitizer,
       "UndefinedBehaviorSanitizer build: ",
       {"-fsanitize=local-bounds", "-fsanitize-trap=local-bounds"},
       {},
       llvm::Attribute::None},
  };
  // ASan reserves terabytes of shadow address space: no address-space limit for these runs.
  RunConfig unlimited = config;
  unlimited.memory_bytes = 0;
  std::string module_bitcode;  // serialized once, for whichever builds need it
  for (const Sanitizer& sanitizer : sanitizers) {
    if (!sanitizer.enabled) continue;
    if (module_bitcode.empty()) module_bitcode = ModuleToBitcode(*s.module);
    const std::string* bitcode = &module_bitcode;
    std::string marked;
    if (sanitizer.function_attribute != llvm::Attribute::None) {
      // Marked on a copy: the episode's module stays as the actions left it.
      auto context = NewContext();
      ASSIGN_OR_RETURN(auto copy, ParseModule(module_bitcode, "copy", *context));
      for (llvm::Function& function : *copy) {
        if (!function.isDeclaration()) function.addFnAttr(sanitizer.function_attribute);
      }
      marked = ModuleToBitcode(*copy);
      bitcode = &marked;
    }
    ASSIGN_OR_RETURN(auto instrumented, CompileExecutable(*bitcode, benchmark, sanitizer.flags));
    RETURN_IF_ERROR(check(sanitizer.label, *instrumented, unlimited, sanitizer.env));
  }
  return problems;
}

StatusOr<observations::Inst2vecStatementGraph> Inst2vecStatementGraphOf(std::string_view ir) {
  auto context = NewContext();
  ASSIGN_OR_RETURN(auto module,
                   ParseModule(llvm::StringRef(ir.data(), ir.size()), "inst2vec", *context));
  return observations::BuildInst2vecStatementGraph(*module);
}

}  // namespace compiler_gym::llvm_env
