// GccEnv: actions over a GccSpec's options, command lines to and from choices, compiles run in
// the sandbox and cached in CompileCache, the observation table, and the family's registration.
#include "envs/gcc/gcc_env.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "engine/sandbox.h"
#include "envs/gcc/compile_cache.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MD5.h"

namespace compiler_gym::gcc_env {

std::vector<GccAction> MakeActions(const GccSpec& spec) {
  std::vector<GccAction> actions;
  for (size_t i = 0; i < spec.options.size(); ++i) {
    const GccOption& option = spec.options[i];
    const int64_t n = option.NumValues();
    const int index = static_cast<int>(i);
    if (n < 10) {
      for (int64_t v = 0; v < n; ++v) actions.push_back({index, false, v, option.Render(v)});
      continue;
    }
    for (const auto& [step, from] :
         {std::pair<int64_t, int64_t>{1, 10}, {10, 50}, {100, 500}, {1000, 5000}}) {
      if (n < from) break;
      for (const int64_t delta : {step, -step}) {
        const std::string sign = delta > 0 ? "+" : "";
        actions.push_back(
            {index, true, delta, option.name + "[" + sign + std::to_string(delta) + "]"});
      }
    }
  }
  return actions;
}

std::vector<std::string> ChoiceArgs(const GccSpec& spec, const std::vector<int64_t>& choices) {
  std::vector<std::string> args;
  for (size_t i = 0; i < choices.size() && i < spec.options.size(); ++i) {
    if (choices[i] >= 0) args.push_back(spec.options[i].Render(choices[i]));
  }
  return args;
}

namespace {

// What follows the options on a command line: the compile that `obj` runs.
const std::vector<std::string>& ObjectSuffix() {
  static const std::vector<std::string> suffix = {"-w", "-c", "src.c", "-o", "obj.o"};
  return suffix;
}

}  // namespace

StatusOr<std::vector<int64_t>> ParseCommandLine(const GccSpec& spec, const std::string& line) {
  std::vector<std::string> tokens;
  std::istringstream in(line);
  for (std::string token; in >> token;) tokens.push_back(token);
  size_t begin = 0, end = tokens.size();
  if (begin < end && !tokens[begin].starts_with("-")) ++begin;  // the compiler
  const auto& suffix = ObjectSuffix();
  if (end - begin >= suffix.size() &&
      std::equal(suffix.begin(), suffix.end(), tokens.end() - suffix.size())) {
    end -= suffix.size();
  }
  // Most arguments name their option before any '=': look options up by that first.
  std::map<std::string, std::vector<size_t>, std::less<>> by_name;
  for (size_t i = 0; i < spec.options.size(); ++i) {
    const GccOption& o = spec.options[i];
    by_name[o.kind == OptionKind::kOLevel ? "-O" : o.name].push_back(i);
    if (o.kind == OptionKind::kFlag) by_name["-fno-" + o.name.substr(2)].push_back(i);
  }
  std::vector<int64_t> choices(spec.options.size(), -1);
  for (size_t t = begin; t < end; ++t) {
    const std::string& arg = tokens[t];
    std::string key = arg.substr(0, arg.find('=', arg.starts_with("--param=") ? 8 : 0));
    if (arg.starts_with("-O")) key = "-O";
    bool found = false;
    if (auto it = by_name.find(key); it != by_name.end()) {
      for (size_t i : it->second) {
        const int64_t choice = spec.options[i].ParseArg(arg);
        if (choice >= 0) {
          choices[i] = choice;
          found = true;
          break;
        }
      }
    }
    if (!found) return InvalidArgument("not an option value of " + spec.gcc + ": " + arg);
  }
  return choices;
}

std::map<std::string, int64_t> InstructionCounts(std::string_view assembly) {
  std::map<std::string, int64_t> counts;
  size_t start = 0;
  while (start < assembly.size()) {
    size_t end = assembly.find('\n', start);
    if (end == std::string_view::npos) end = assembly.size();
    const std::string_view line = assembly.substr(start, end - start);
    start = end + 1;
    if (line.size() < 2 || line[0] != '\t') continue;
    size_t n = 1;
    auto mnemonic = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-';
    };
    while (n < line.size() && mnemonic(line[n])) ++n;
    if (n > 1) ++counts[std::string(line.substr(1, n - 1))];
  }
  return counts;
}

// ---------------------------------------------------------------------------------------------
// The family of one compiler: its spec, spaces and actions, made once per gcc_bin.

namespace {

struct Family {
  Status error;  // why gcc_bin is unusable (then the spaces are empty)
  std::shared_ptr<const GccSpec> spec;
  std::vector<GccAction> actions;
  EnvSpec env_spec;
};

EnvSpec MakeEnvSpec(const GccSpec* spec, const std::vector<GccAction>& actions);

std::shared_ptr<const Family> FamilyFor(const std::string& gcc_bin) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const Family>> families;
  std::lock_guard lock(mutex);
  auto it = families.find(gcc_bin);
  if (it != families.end()) return it->second;
  auto family = std::make_shared<Family>();
  StatusOr<std::shared_ptr<const GccSpec>> spec = LoadGccSpec(gcc_bin);
  if (spec.ok()) {
    family->spec = *spec;
    family->actions = MakeActions(**spec);
  } else {
    family->error = spec.status();
  }
  family->env_spec = MakeEnvSpec(family->spec.get(), family->actions);
  // A missing compiler may be installed later: only a usable one is remembered.
  if (spec.ok()) families.emplace(gcc_bin, family);
  return family;
}

std::string Md5Hex(const std::string& data) {
  llvm::MD5 md5;
  md5.update(llvm::StringRef(data));
  llvm::MD5::MD5Result result;
  md5.final(result);
  return std::string(result.digest().str());
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : " ") + p;
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The env.

struct GccEnv::Impl {
  std::string gcc_bin = "gcc";
  std::shared_ptr<const Family> family = FamilyFor("gcc");
  double timeout_seconds = 60;
  std::shared_ptr<const std::string> source;  // preprocessed
  std::vector<int64_t> choices;
  std::vector<std::optional<Observation>> cache;  // of the current choices
  std::string workdir;
  pid_t workdir_owner = 0;
  bool source_written = false;

  ~Impl() {
    if (!workdir.empty() && workdir_owner == ::getpid()) RemoveTree(workdir);
  }

  const GccSpec& spec() const { return *family->spec; }

  StatusOr<std::string> Workdir() {
    if (workdir.empty() || workdir_owner != ::getpid()) {
      ASSIGN_OR_RETURN(workdir, MakeTempDir("compiler_gym-gcc"));
      workdir_owner = ::getpid();
      source_written = false;
    }
    return workdir;
  }

  // Runs the compiler in the workdir with `args`; returns the file it wrote to `output`.
  StatusOr<std::string> RunGcc(const std::vector<std::string>& args, const std::string& output) {
    ASSIGN_OR_RETURN(const std::string dir, Workdir());
    std::vector<std::string> argv = {spec().gcc};
    argv.insert(argv.end(), args.begin(), args.end());
    const SandboxLimits limits{.timeout_seconds = timeout_seconds};
    const std::string out_path = dir + "/" + output;
    ::unlink(out_path.c_str());
    // TMPDIR: what a killed compiler leaves behind goes with the workdir.
    ASSIGN_OR_RETURN(ProcessResult r, RunSandboxed(argv, limits, dir, {"TMPDIR=" + dir}));
    const std::string command = Join(argv);
    if (r.timed_out) {
      return DeadlineExceeded(command + ": " + r.Describe(limits));
    }
    if (!r.ok()) {
      // An error, an internal compiler error, a crash: GCC's own words say which.
      return Aborted(command + ": " + r.Describe(limits) + ": " + r.stderr_text.substr(0, 2000));
    }
    StatusOr<std::string> bytes = ReadFile(out_path);
    if (!bytes.ok()) return Internal("gcc wrote no " + out_path);
    ::unlink(out_path.c_str());
    return bytes;
  }

  // What a compile of the source with `options` produces: "obj", "asm" or "rtl".
  StatusOr<CompileCache::Value> Compile(const std::vector<std::string>& options,
                                        const std::string& product) {
    if (!source) return NoEpisode("no program: call reset()");
    const std::string key = CacheKey({spec().gcc, spec().version, product, Join(options), *source});
    return CompileCache::Get().GetOrCompute(key, [&]() -> StatusOr<std::string> {
      ASSIGN_OR_RETURN(const std::string dir, Workdir());
      if (!source_written) {
        std::ofstream out(dir + "/src.c", std::ios::binary);
        out << *source;
        if (!out.flush()) return Internal("cannot write " + dir + "/src.c");
        source_written = true;
      }
      std::vector<std::string> args = options;
      if (product == "obj") {
        args.insert(args.end(), ObjectSuffix().begin(), ObjectSuffix().end());
        return RunGcc(args, "obj.o");
      }
      args.insert(args.end(), {"-w", "-S", "src.c"});
      if (product == "rtl") {
        args.push_back("-fdump-rtl-dfinish=rtl.lsp");
        args.insert(args.end(), {"-o", "asm.s"});
        return RunGcc(args, "rtl.lsp");
      }
      args.insert(args.end(), {"-o", "asm.s"});
      return RunGcc(args, "asm.s");
    });
  }

  StatusOr<CompileCache::Value> Product(const std::string& product) {
    return Compile(ChoiceArgs(spec(), choices), product);
  }

  // The source of a benchmark, preprocessed (cached by the file's identity, or its bytes).
  StatusOr<std::shared_ptr<const std::string>> Preprocess(const Benchmark& benchmark) {
    std::string input, identity;
    if (benchmark.files.size() > 1) {
      return BenchmarkInitError(benchmark.uri + ": gcc-v0 compiles one translation unit, got " +
                                std::to_string(benchmark.files.size()) + " files");
    }
    if (benchmark.files.size() == 1) {
      input = benchmark.files[0];
      const std::string ext = input.substr(input.rfind('.') + 1);
      if (ext != "c" && ext != "i") {
        return BenchmarkInitError(benchmark.uri + ": gcc-v0 compiles C sources, not " + input);
      }
      struct stat st{};
      if (::stat(input.c_str(), &st) != 0) return NotFound("no such file: " + input);
      identity = input + "@" + std::to_string(st.st_mtim.tv_sec) + "." +
                 std::to_string(st.st_mtim.tv_nsec) + ":" + std::to_string(st.st_size);
    } else if (!benchmark.data.empty()) {
      identity = benchmark.data;
    } else {
      return BenchmarkInitError(benchmark.uri + ": the benchmark has no program");
    }
    std::vector<std::string> args = {"-E", "-P"};
    args.insert(args.end(), benchmark.compile_args.begin(), benchmark.compile_args.end());
    const std::string key = CacheKey({spec().gcc, "E", Join(args), identity});
    StatusOr<CompileCache::Value> source =
        CompileCache::Get().GetOrCompute(key, [&]() -> StatusOr<std::string> {
          ASSIGN_OR_RETURN(const std::string dir, Workdir());
          std::string file = input;
          if (file.empty()) {
            file = dir + "/input.c";
            std::ofstream out(file, std::ios::binary);
            out << benchmark.data;
            if (!out.flush()) return Internal("cannot write " + file);
          }
          std::vector<std::string> all = args;
          all.insert(all.end(), {file, "-o", "preprocessed.c"});
          return RunGcc(all, "preprocessed.c");
        });
    if (!source.ok()) {
      return BenchmarkInitError(benchmark.uri +
                                ": does not preprocess: " + source.status().message());
    }
    return *source;
  }
};

namespace {

using Impl = GccEnv::Impl;
using ComputeFn = StatusOr<Observation> (*)(Impl&);

struct ObservationRow {
  SpaceSpec spec;
  ComputeFn compute;
};

// GCC's text products, as the compiler on this host writes them.
SpaceSpec TextSpace(std::string name, std::string doc, int64_t length = -1) {
  return {.name = std::move(name),
          .kind = SpaceKind::kText,
          .shape = {length},
          .low = 0,
          .platform_dependent = true,
          .doc = std::move(doc)};
}

// CompilerGym's sizes: -1 (also the space's low) when an error ended the episode.
SpaceSpec Size(std::string name, std::string doc) {
  return {.name = std::move(name),
          .dtype = DType::kInt64,
          .low = -1,
          .platform_dependent = true,
          .doc = std::move(doc),
          .scalar_default = -1};
}

StatusOr<Observation> SizeOf(Impl& s, const std::vector<std::string>& options,
                             const char* product) {
  ASSIGN_OR_RETURN(CompileCache::Value value, s.Compile(options, product));
  return Observation(static_cast<int64_t>(value->size()));
}

const std::vector<ObservationRow>& ObservationTable() {
  static const std::vector<ObservationRow> rows = {
      {TextSpace("source", "The program, preprocessed (gcc -E -P), as it is compiled."),
       [](Impl& s) -> StatusOr<Observation> { return Observation(compiler_gym::Text{*s.source}); }},
      {TextSpace("rtl", "GCC's RTL after its last RTL pass (-fdump-rtl-dfinish)."),
       [](Impl& s) -> StatusOr<Observation> {
         ASSIGN_OR_RETURN(CompileCache::Value v, s.Product("rtl"));
         return Observation(compiler_gym::Text{*v});
       }},
      {TextSpace("asm", "The assembly GCC writes with the current options (-S)."),
       [](Impl& s) -> StatusOr<Observation> {
         ASSIGN_OR_RETURN(CompileCache::Value v, s.Product("asm"));
         return Observation(compiler_gym::Text{*v});
       }},
      {Size("asm_size", "Bytes of the assembly."),
       [](Impl& s) { return SizeOf(s, ChoiceArgs(s.spec(), s.choices), "asm"); }},
      {TextSpace("asm_hash", "MD5 of the assembly, 32 hex digits.", 32),
       [](Impl& s) -> StatusOr<Observation> {
         ASSIGN_OR_RETURN(CompileCache::Value v, s.Product("asm"));
         return Observation(compiler_gym::Text{Md5Hex(*v)});
       }},
      {{.name = "instruction_counts",
        .kind = SpaceKind::kDict,
        .low = 0,
        .platform_dependent = true,
        .doc = "Instructions (and directives) in the assembly: mnemonic -> count."},
       [](Impl& s) -> StatusOr<Observation> {
         ASSIGN_OR_RETURN(CompileCache::Value v, s.Product("asm"));
         return Observation(Json{nlohmann::json(InstructionCounts(*v)).dump()});
       }},
      {{.name = "obj",
        .kind = SpaceKind::kBytes,
        .dtype = DType::kUint8,
        .shape = {-1},
        .low = 0,
        .high = 255,
        .platform_dependent = true,
        .doc = "The object file GCC writes with the current options (-c)."},
       [](Impl& s) -> StatusOr<Observation> {
         ASSIGN_OR_RETURN(CompileCache::Value v, s.Product("obj"));
         return Observation(Bytes{*v});
       }},
      {Size("obj_size", "Bytes of the object file (the whole ELF file, as CompilerGym)."),
       [](Impl& s) { return SizeOf(s, ChoiceArgs(s.spec(), s.choices), "obj"); }},
      {TextSpace("obj_hash", "MD5 of the object file, 32 hex digits.", 32),
       [](Impl& s) -> StatusOr<Observation> {
         ASSIGN_OR_RETURN(CompileCache::Value v, s.Product("obj"));
         return Observation(compiler_gym::Text{Md5Hex(*v)});
       }},
      // The shape depends on the compiler: MakeEnvSpec fills it in.
      {{.name = "choices",
        .kind = SpaceKind::kVector,
        .dtype = DType::kInt64,
        .shape = {0},
        .low = -1,
        .high = INT32_MAX,
        .doc = "One choice per option: -1 = not on the command line, i = its i-th value."},
       [](Impl& s) -> StatusOr<Observation> { return Observation(s.choices); }},
      {{.name = "command_line",
        .kind = SpaceKind::kText,
        .shape = {-1},
        .low = 0,
        .doc = "The compile of the current state: gcc OPTIONS -w -c src.c -o obj.o."},
       [](Impl& s) -> StatusOr<Observation> {
         std::vector<std::string> argv = {s.gcc_bin};
         for (std::string& a : ChoiceArgs(s.spec(), s.choices)) argv.push_back(std::move(a));
         argv.insert(argv.end(), ObjectSuffix().begin(), ObjectSuffix().end());
         return Observation(compiler_gym::Text{Join(argv)});
       }},
      {Size("asm_size_O0", "asm_size with no options (the state at reset)."),
       [](Impl& s) { return SizeOf(s, {}, "asm"); }},
      {Size("asm_size_Os", "asm_size with -Os alone."),
       [](Impl& s) { return SizeOf(s, {"-Os"}, "asm"); }},
      {Size("obj_size_O0", "obj_size with no options (the state at reset)."),
       [](Impl& s) { return SizeOf(s, {}, "obj"); }},
      {Size("obj_size_Os", "obj_size with -Os alone."),
       [](Impl& s) { return SizeOf(s, {"-Os"}, "obj"); }},
  };
  return rows;
}

RewardSpec SizeReward(std::string name, std::string cost, RewardKind kind, std::string baseline,
                      std::string doc) {
  return {.name = std::move(name),
          .cost_observation = cost,
          .initial_observation = cost + "_O0",
          .baseline_observation = std::move(baseline),
          .kind = kind,
          .platform_dependent = true,
          .doc = std::move(doc)};
}

EnvSpec MakeEnvSpec(const GccSpec* spec, const std::vector<GccAction>& actions) {
  EnvSpec s;
  s.family = "gcc";
  if (spec != nullptr) s.compiler_version = spec->version;
  ActionSpaceSpec space{"default", {}, "Set an option to a value, or move an integer option."};
  for (const GccAction& a : actions) space.action_names.push_back(a.name);
  s.action_spaces.push_back(std::move(space));
  for (const ObservationRow& row : ObservationTable()) {
    s.observation_spaces.push_back(row.spec);
    if (row.spec.name == "choices") {
      s.observation_spaces.back().shape = {spec ? static_cast<int64_t>(spec->options.size()) : 0};
    }
  }
  s.reward_spaces = {
      SizeReward("asm_size", "asm_size", RewardKind::kDelta, "",
                 "Bytes of assembly saved since the last step."),
      SizeReward("obj_size", "obj_size", RewardKind::kDelta, "",
                 "Bytes of object file saved since the last step."),
      SizeReward("asm_size_Os", "asm_size", RewardKind::kNormByBaseline, "asm_size_Os",
                 "asm_size saved, as a fraction of what -Os saves (episode total 1 = -Os)."),
      SizeReward("obj_size_Os", "obj_size", RewardKind::kNormByBaseline, "obj_size_Os",
                 "obj_size saved, as a fraction of what -Os saves (episode total 1 = -Os)."),
  };
  return s;
}

}  // namespace

GccEnv::GccEnv() : impl_(std::make_unique<Impl>()) {}
GccEnv::~GccEnv() = default;

const EnvSpec& GccEnv::Spec() const { return impl_->family->env_spec; }

Status GccEnv::DoReset(const Benchmark& benchmark) {
  Impl& s = *impl_;
  RETURN_IF_ERROR(s.family->error);
  ASSIGN_OR_RETURN(std::shared_ptr<const std::string> source, s.Preprocess(benchmark));
  s.source = std::move(source);
  s.source_written = false;
  s.choices.assign(s.spec().options.size(), -1);
  s.cache.assign(ObservationTable().size(), std::nullopt);
  // A program that does not compile as given is a bad benchmark, said by reset() as it is for
  // one that does not preprocess (not, later, as a failed observation). The object is cached:
  // the episode's first size observation reads it.
  StatusOr<CompileCache::Value> compiled = s.Product("obj");
  if (!compiled.ok()) {
    s.source.reset();
    return BenchmarkInitError(benchmark.uri + ": does not compile: " + compiled.status().message());
  }
  return Status::Ok();
}

StatusOr<StepOutcome> GccEnv::DoStep(std::span<const int> actions) {
  Impl& s = *impl_;
  StepOutcome out;
  for (int a : actions) {
    const GccAction& action = s.family->actions[a];
    int64_t& choice = s.choices[action.option];
    const int64_t n = s.spec().options[action.option].NumValues();
    const int64_t next =
        action.delta ? std::clamp<int64_t>(choice + action.value, -1, n - 1) : action.value;
    if (next != choice) {
      choice = next;
      out.action_had_no_effect = false;
    }
  }
  if (!out.action_had_no_effect) s.cache.assign(ObservationTable().size(), std::nullopt);
  return out;
}

StatusOr<Observation> GccEnv::Observe(int index) {
  Impl& s = *impl_;
  if (index < 0 || index >= static_cast<int>(ObservationTable().size())) {
    return InvalidArgument("unknown observation space index " + std::to_string(index));
  }
  if (!in_episode()) return NotInEpisode("observation");
  if (!s.cache[index]) {
    ASSIGN_OR_RETURN(Observation value, ObservationTable()[index].compute(s));
    s.cache[index] = std::move(value);
  }
  return *s.cache[index];
}

StatusOr<std::unique_ptr<Env>> GccEnv::DoFork() {
  auto copy = std::make_unique<GccEnv>();
  Impl& to = *copy->impl_;
  const Impl& from = *impl_;
  to.gcc_bin = from.gcc_bin;
  to.family = from.family;
  to.timeout_seconds = from.timeout_seconds;
  to.source = from.source;
  to.choices = from.choices;
  to.cache = from.cache;
  return std::unique_ptr<Env>(std::move(copy));
}

Status GccEnv::SetParameter(const std::string& name, const std::string& value) {
  Impl& s = *impl_;
  if (name == "gcc_bin") {
    if (in_episode()) {
      return FailedPrecondition("gcc_bin decides the spaces: set it before the first reset");
    }
    std::shared_ptr<const Family> family = FamilyFor(value);
    RETURN_IF_ERROR(family->error);
    s.gcc_bin = value;
    s.family = std::move(family);
    return Status::Ok();
  }
  if (name == "compile_timeout_seconds") {
    ASSIGN_OR_RETURN(const double seconds, ParseNumberParameter(name, value));
    if (seconds <= 0) return InvalidArgument(name + " must be a number > 0, got " + value);
    s.timeout_seconds = seconds;
    return Status::Ok();
  }
  return Env::SetParameter(name, value);
}

StatusOr<std::string> GccEnv::GetParameter(const std::string& name) const {
  if (name == "gcc_bin") return impl_->gcc_bin;
  if (name == "compile_timeout_seconds") {
    std::ostringstream out;
    out << impl_->timeout_seconds;
    return out.str();
  }
  return Env::GetParameter(name);
}

StatusOr<std::string> GccEnv::Call(const std::string& method, const std::string& argument) {
  Impl& s = *impl_;
  if (method == "cache_stats") {
    const CompileCacheStats stats = CompileCache::Get().Stats();
    return nlohmann::json{{"compiles", stats.compiles},
                          {"hits", stats.hits},
                          {"entries", stats.entries},
                          {"bytes", stats.bytes},
                          {"limit_bytes", stats.limit_bytes}}
        .dump();
  }
  RETURN_IF_ERROR(s.family->error);
  if (method == "gcc_spec") {
    nlohmann::json options = nlohmann::json::array();
    for (const GccOption& o : s.spec().options) {
      // Every argument of an option with few values; integers render as name=value.
      std::vector<std::string> args;
      for (int64_t i = 0; o.kind != OptionKind::kInt && i < o.NumValues(); ++i) {
        args.push_back(o.Render(i));
      }
      options.push_back({{"name", o.name},
                         {"kind", OptionKindName(o.kind)},
                         {"args", args},
                         {"min", o.min},
                         {"max", o.max},
                         {"num_values", o.NumValues()},
                         {"is_param", o.is_param},
                         {"default", o.default_value}});
    }
    return nlohmann::json{{"gcc", s.spec().gcc},
                          {"gcc_bin", s.gcc_bin},
                          {"version", s.spec().version},
                          {"options", options}}
        .dump();
  }
  if (method == "parse_command_line") {
    ASSIGN_OR_RETURN(std::vector<int64_t> choices, ParseCommandLine(s.spec(), argument));
    return nlohmann::json(choices).dump();
  }
  if (method == "set_choices") {
    if (!in_episode()) return NoEpisode("set_choices needs an episode: call reset()");
    const nlohmann::json parsed = nlohmann::json::parse(argument, nullptr, false);
    if (!parsed.is_array()) return InvalidArgument("choices must be a JSON array of integers");
    if (parsed.size() != s.spec().options.size()) {
      return InvalidArgument("expected " + std::to_string(s.spec().options.size()) +
                             " choices, got " + std::to_string(parsed.size()));
    }
    std::vector<int64_t> choices;
    for (size_t i = 0; i < parsed.size(); ++i) {
      const GccOption& option = s.spec().options[i];
      if (!parsed[i].is_number_integer() || parsed[i].get<int64_t>() < -1 ||
          parsed[i].get<int64_t>() >= option.NumValues()) {
        return InvalidArgument("choice " + parsed[i].dump() + " of " + option.name +
                               " is out of range [-1, " + std::to_string(option.NumValues()) + ")");
      }
      choices.push_back(parsed[i].get<int64_t>());
    }
    if (choices != s.choices) {
      s.choices = std::move(choices);
      s.cache.assign(ObservationTable().size(), std::nullopt);
    }
    return std::string("null");
  }
  return Env::Call(method, argument);
}

Status RegisterGccEnvs(Registry& registry) {
  // Everything GCC offers beyond the Env interface is per env (its spec depends on gcc_bin).
  FamilyEntry family;
  family.name = "gcc";
  family.doc = "GCC flag tuning";
  RETURN_IF_ERROR(registry.AddFamily(std::move(family)));
  return registry.Add(EnvEntry{"gcc-v0", "gcc", "", "", "benchmark://builtin-v0/adpcm",
                               "GCC flag tuning", [] { return std::make_unique<GccEnv>(); }});
}

}  // namespace compiler_gym::gcc_env
