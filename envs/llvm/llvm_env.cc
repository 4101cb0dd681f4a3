// LlvmEnv's episode: reset, steps that each run one pass and check the module afterwards, fork,
// snapshots, parameters and CheckSemantics. The spaces are in llvm_spaces.cc.
#include "envs/llvm/llvm_env.h"

#include "engine/cpu_timer.h"
#include "envs/llvm/llvm_env_impl.h"

namespace compiler_gym::llvm_env {

const EnvSpec& LlvmEnvSpec() {
  static const EnvSpec spec = [] {
    EnvSpec s;
    s.family = "llvm";
    s.compiler_version = LLVM_VERSION_STRING;
    for (const ActionSpaceRow& space : ActionSpaceTable()) {
      ActionSpaceSpec spec{space.name, {}, space.description, space.opt_in};
      for (const PassRow& row : space.table()) spec.action_names.push_back(row.flag);
      s.action_spaces.push_back(std::move(spec));
    }
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
  EnsureCrashRecovery();
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

void LlvmEnv::Impl::EnsureFingerprint(StepOutcome& outcome) {
  if (fingerprint) return;
  const double start = ThreadCpuTimer::Now();
  fingerprint = Fingerprint(*module, &fingerprint_cache);
  const double seconds = ThreadCpuTimer::Now() - start;
  outcome.fingerprint_seconds += seconds;
  outcome.verify_seconds += seconds;
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
  auto since = [](double start) { return ThreadCpuTimer::Now() - start; };
  EnsureFingerprint(outcome);
  EnsureCrashRecovery();
  // The module, the analyses and the context may be half-modified after a crash: freed
  // crash-contained, analyses before the IR they point into. The next reset starts from a new
  // context. Freed outermost first, as a scope destroys them: a module manager's proxy clears
  // the function manager it points into when it goes.
  auto crashed = [&](const std::string& what) {
    auto module_analyses = std::make_unique<llvm::ModuleAnalysisManager>(std::exchange(mam, {}));
    auto cgscc_analyses = std::make_unique<llvm::CGSCCAnalysisManager>(std::exchange(cgam, {}));
    auto function_analyses =
        std::make_unique<llvm::FunctionAnalysisManager>(std::exchange(fam, {}));
    auto loop_analyses = std::make_unique<llvm::LoopAnalysisManager>(std::exchange(lam, {}));
    FreeAfterCrash(restore_point, mpm, module_analyses, cgscc_analyses, function_analyses,
                   loop_analyses, module, context);
    pb.reset();
    benchmark.reset();
    fingerprint.reset();
    outcome.done = true;
    outcome.error = Crash(what);
    return false;
  };
  // A crash or fatal error inside the pass unwinds to here instead of killing the process.
  llvm::CrashRecoveryContext crc;
  const double start = ThreadCpuTimer::Now();
  const bool ok = crc.RunSafely([&] { (void)mpm->run(*module, mam); });
  outcome.compute_seconds += since(start);
  if (!ok) return crashed("pass " + name + " crashed");
  // What follows reads the IR the pass left, which may be broken past what the verifier's own
  // printing survives (-loop-fusion left phis that do not match their predecessors, and the
  // verifier crashed printing them): it runs crash-contained too.
  const double verify_start = ThreadCpuTimer::Now();
  bool unchanged = false;
  Status verified;
  llvm::CrashRecoveryContext verify_crc;
  const bool checked = verify_crc.RunSafely([&] {
    // Every step starts from no cached analysis. An analysis that passes kept up to date
    // incrementally (MemorySSA, the dominator tree) is not the one a fresh computation builds,
    // and passes read its order: -gvn-hoist after -early-cse-memssa and -memcpyopt hoisted
    // differently in an env than in its fork, which computes analyses afresh. So the state of
    // an env is its module alone, which a fork, a replay and a new episode all reproduce.
    ClearAnalyses();
    // Whether the module changed is read off the module itself: passes do not always keep
    // LLVM's contract (a pass that changed the IR does not report all analyses preserved).
    Canonicalize(*module);
    ModuleFingerprint after = Fingerprint(*module, &fingerprint_cache);
    outcome.fingerprint_seconds += since(verify_start);
    if (after == *fingerprint) {
      unchanged = true;
      return;
    }
    const ModuleFingerprint before = std::move(*fingerprint);
    Invalidate();
    verified = VerifyChanged(before, after);
    fingerprint = std::move(after);
  });
  outcome.verify_seconds += since(verify_start);
  if (!checked) return crashed("the verifier crashed on the IR that pass " + name + " left");
  if (unchanged) return true;
  outcome.action_had_no_effect = false;
  if (!verified.ok()) {
    outcome.done = true;
    outcome.error = Internal("after pass " + name + ": " + verified.message());
    return false;
  }
  return true;
}

bool LlvmEnv::Impl::RunOwnProcessStep(const PassRow& row, StepOutcome& outcome) {
  auto since = [](double start) { return ThreadCpuTimer::Now() - start; };
  EnsureFingerprint(outcome);
  const double start = ThreadCpuTimer::Now();
  // The use-list order goes in: it is part of the state (a fork keeps it) and passes read it.
  StatusOr<OwnProcessResult> ran =
      RunPipelineInOwnProcess(ModuleToBitcode(*module, /*preserve_use_list_order=*/true),
                              row.pipeline, kDefaultClangTimeoutSeconds);
  outcome.compute_seconds += since(start) + (ran.ok() ? ran->cpu_seconds : 0);
  if (!ran.ok()) {  // the module in memory is untouched, but the action did not happen
    outcome.done = true;
    outcome.error = Status(ran.status().code(), "pass " + row.flag + ": " + ran.status().message());
    return false;
  }
  const double verify_start = ThreadCpuTimer::Now();
  auto done_verifying = [&] {
    outcome.verify_seconds += since(verify_start);
    outcome.fingerprint_seconds += since(verify_start);
  };
  // Unchanged: the module stays as it is, use lists and all.
  if (ran->bitcode == ModuleToBitcode(*module)) {
    done_verifying();
    return true;
  }
  std::unique_ptr<llvm::LLVMContext> new_context = NewContext();
  StatusOr<std::unique_ptr<llvm::Module>> parsed =
      ParseModule(ran->bitcode, module->getModuleIdentifier(), *new_context);
  if (!parsed.ok()) {
    done_verifying();
    outcome.done = true;
    outcome.error = Internal("after pass " + row.flag + ": " + parsed.status().message());
    return false;
  }
  // What bitcode does not hold: the counts of names made unique (as a fork copies them).
  (void)CopyNameCounters(*module, **parsed);
  ClearAnalyses();
  RetireModule();  // and the TryActions restore point, in that context: restores go by bitcode
  fingerprint_cache.bodies.clear();
  context = std::move(new_context);
  module = std::move(*parsed);
  Invalidate();
  fingerprint = Fingerprint(*module, &fingerprint_cache);
  outcome.action_had_no_effect = false;
  done_verifying();
  return true;
}

StatusOr<StepOutcome> LlvmEnv::DoStep(std::span<const int> actions) {
  StepOutcome outcome;
  outcome.actions_applied = 0;
  const std::vector<PassRow>& table = ActionTable(action_space());
  const int rows = static_cast<int>(table.size());
  for (int action : actions) {
    if (action >= rows) {  // a pipeline action (CheckActions bounds it by NumActions)
      ++outcome.actions_applied;
      const std::string& pipeline = impl_->pipeline_actions[action - rows];
      if (!impl_->RunPipelineStep(pipeline, pipeline, outcome)) break;
      continue;
    }
    const PassRow& row = table[action];
    ++outcome.actions_applied;
#ifdef CG_TEST_HOOKS
    const std::string injected = std::exchange(impl_->next_step_pipeline, "");
    if (!injected.empty()) {
      if (!impl_->RunPipelineStep(injected, injected, outcome)) break;
      continue;
    }
#endif
    if (row.own_process) {
      if (!impl_->RunOwnProcessStep(row, outcome)) break;
      continue;
    }
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
  if (!in_episode()) return NotInEpisode("observation");
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
  c.pipeline_actions = s.pipeline_actions;
  return std::unique_ptr<Env>(std::move(copy));
}

namespace {

struct LlvmSnapshot : EnvSnapshot {
  std::string bitcode;
  std::vector<uint32_t> name_counters;
};

}  // namespace

StatusOr<std::unique_ptr<EnvSnapshot>> LlvmEnv::DoSnapshot() {
  Impl& s = *impl_;
  if (!s.module) return NoEpisode("no module to snapshot: the episode ended");
  auto snapshot = std::make_unique<LlvmSnapshot>();
  snapshot->bitcode = ModuleToBitcode(*s.module, /*preserve_use_list_order=*/true);
  snapshot->name_counters = NameCounters(*s.module);
  if (!s.fingerprint) s.fingerprint = Fingerprint(*s.module, &s.fingerprint_cache);
  s.restore_point = ModuleSnapshot::Take(*s.module, *s.fingerprint, s.fingerprint_cache);
  return std::unique_ptr<EnvSnapshot>(std::move(snapshot));
}

Status LlvmEnv::DoRestore(const EnvSnapshot& snapshot, bool changed) {
  const auto& saved = static_cast<const LlvmSnapshot&>(snapshot);
  Impl& s = *impl_;
  s.ClearAnalyses();  // as a fork starts: no analysis cached
  if (s.module && s.restore_point) {
    if (!s.fingerprint) s.fingerprint = Fingerprint(*s.module, &s.fingerprint_cache);
    if (s.restore_point->Restore(s.module, *s.fingerprint, s.fingerprint_cache) !=
        ModuleSnapshot::Restored::kContext) {
      if (changed) s.Invalidate();
      s.fingerprint = s.restore_point->fingerprint();
      return CheckRestoreForTesting(saved.bitcode);
    }
  } else if (!changed && s.module) {
    SetNameCounters(saved.name_counters, *s.module);
    return Status::Ok();
  }
  // Through bitcode, into a new context.
  s.RetireModule();
  s.fingerprint_cache.bodies.clear();
  s.Invalidate();
  s.context = NewContext();
  ASSIGN_OR_RETURN(s.module, ParseModule(saved.bitcode, "restore", *s.context));
  SetNameCounters(saved.name_counters, *s.module);
  s.fingerprint = Fingerprint(*s.module, &s.fingerprint_cache);
  s.restore_point = ModuleSnapshot::Take(*s.module, *s.fingerprint, s.fingerprint_cache);
  return Status::Ok();
}

Status LlvmEnv::CheckRestoreForTesting(const std::string& bitcode) {
#ifdef CG_TEST_HOOKS
  // Test builds, on request: the module after a restore in place is the snapshot's: the same
  // bitcode, and the same use lists (but those of constants the context shares with the copy).
  if (std::getenv("COMPILER_GYM_TEST_CHECK_RESTORES") != nullptr) {
    const llvm::Module& module = *impl_->module;
    llvm::LLVMContext context;
    StatusOr<std::unique_ptr<llvm::Module>> saved = ParseModule(bitcode, "check", context);
    const char* wrong = !saved.ok()                                           ? "parse"
                        : ModuleToBitcode(module) != ModuleToBitcode(**saved) ? "bitcode"
                        : !SameUseLists(module, **saved)                      ? "use lists"
                                                                              : nullptr;
    if (wrong != nullptr) {
      std::fprintf(stderr, "compiler_gym: a restore in place differs from its snapshot (%s)\n",
                   wrong);
      std::abort();
    }
  }
#else
  (void)bitcode;
#endif
  return Status::Ok();
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

int LlvmEnv::NumActions(int action_space) const {
  const int extra = action_space == 1 ? static_cast<int>(impl_->pipeline_actions.size()) : 0;
  return Env::NumActions(action_space) + extra;
}

namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += (out.empty() ? "" : "\n") + line;
  return out;
}

}  // namespace

Status LlvmEnv::SetParameter(const std::string& name, const std::string& value) {
  if (name == kPipelineActionsParameter) {
    std::vector<std::string> pipelines = Lines(value);
    const auto& current = impl_->pipeline_actions;
    if (pipelines.size() < current.size() ||
        !std::equal(current.begin(), current.end(), pipelines.begin())) {
      return InvalidArgument(std::string(kPipelineActionsParameter) +
                             ": pipeline actions can only be added to");
    }
    for (size_t i = current.size(); i < pipelines.size(); ++i) {
      RETURN_IF_ERROR(CheckPipelineAction(pipelines[i]));
    }
    impl_->pipeline_actions = std::move(pipelines);
    return Status::Ok();
  }
#ifdef CG_TEST_HOOKS
  if (name == kNextStepPipelineParameter) {
    impl_->next_step_pipeline = value;
    return Status::Ok();
  }
#endif
  const ParameterRow* row = FindParameter(name);
  if (row == nullptr) return InvalidArgument("unknown parameter " + name);
  ASSIGN_OR_RETURN(const double number, ParseNumberParameter(name, value));
  Status set = row->set(impl_->run_config, number);
  if (!set.ok()) return InvalidArgument(name + " " + set.message() + ", got " + value);
  // Runtime measurements depend on the run settings.
  const int runtime = LlvmEnvSpec().ObservationIndex("Runtime");
  if (!impl_->cache.empty()) impl_->cache[runtime].reset();
  return Status::Ok();
}

StatusOr<std::string> LlvmEnv::GetParameter(const std::string& name) const {
  if (name == kPipelineActionsParameter) return JoinLines(impl_->pipeline_actions);
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
