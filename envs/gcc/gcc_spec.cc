// Reading a GccSpec: parsing `gcc -Q --help=optimizers` and `--help=params` into typed options,
// rendering and parsing their arguments, and one spec per resolved compiler for the process.
#include "envs/gcc/gcc_spec.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>

#include "engine/sandbox.h"

namespace compiler_gym::gcc_env {

const char* OptionKindName(OptionKind kind) {
  switch (kind) {
    case OptionKind::kOLevel:
      return "olevel";
    case OptionKind::kFlag:
      return "flag";
    case OptionKind::kEnum:
      return "enum";
    case OptionKind::kInt:
      return "int";
  }
  return "?";
}

int64_t GccOption::NumValues() const {
  switch (kind) {
    case OptionKind::kFlag:
      return static_cast<int64_t>(values.empty() ? 2 : values.size());
    case OptionKind::kInt:
      return max - min + 1;
    default:
      return static_cast<int64_t>(values.size());
  }
}

std::string GccOption::Render(int64_t choice) const {
  if (choice < 0 || choice >= NumValues()) return "";
  switch (kind) {
    case OptionKind::kOLevel:
      return "-O" + values[choice];
    case OptionKind::kFlag:
      // "-fNAME" and "-fno-NAME"; a flag without a negative form has one value.
      return choice == 0 ? name : "-fno-" + name.substr(2);
    case OptionKind::kEnum:
      return name + "=" + values[choice];
    case OptionKind::kInt:
      return name + "=" + std::to_string(min + choice);
  }
  return "";
}

namespace {

bool ParseInt(std::string_view text, int64_t* out) {
  if (text.empty()) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

int64_t GccOption::DefaultChoice() const {
  if (kind == OptionKind::kInt) {
    int64_t value = 0;
    if (ParseInt(default_value, &value)) return std::clamp(value, min, max) - min;
    return 0;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] == default_value) return static_cast<int64_t>(i);
  }
  return 0;
}

int64_t GccOption::ParseArg(std::string_view arg) const {
  switch (kind) {
    case OptionKind::kOLevel:
    case OptionKind::kEnum:
    case OptionKind::kFlag:
      for (int64_t i = 0; i < NumValues(); ++i) {
        if (Render(i) == arg) return i;
      }
      return -1;
    case OptionKind::kInt: {
      const std::string prefix = name + "=";
      if (!arg.starts_with(prefix)) return -1;
      int64_t value = 0;
      if (!ParseInt(arg.substr(prefix.size()), &value) || value < min || value > max) return -1;
      return value - min;
    }
  }
  return -1;
}

namespace {

std::string_view Trim(std::string_view s) {
  const size_t begin = s.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  const size_t end = s.find_last_not_of(" \t\r");
  return s.substr(begin, end - begin + 1);
}

std::vector<std::string> SplitBar(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t bar = s.find('|', start);
    const size_t end = bar == std::string_view::npos ? s.size() : bar;
    out.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The value part of "NAME=[a|b]" or "NAME=<min,max>" (after the '='): sets `option` to an enum
// or an integer range. "<number>" and "" are integers of no stated range: GCC takes any
// non-negative int there (a default of -1 means "unset" inside GCC; the command line refuses it).
// False for anything else.
bool ParseValueSpec(std::string_view spec, GccOption& option) {
  if (spec.size() >= 2 && spec.front() == '[' && spec.back() == ']') {
    option.kind = OptionKind::kEnum;
    option.values = SplitBar(spec.substr(1, spec.size() - 2));
    return !option.values.empty();
  }
  option.kind = OptionKind::kInt;
  if (spec.empty() || spec == "<number>") {
    option.min = 0;
    option.max = INT_MAX;
    return true;
  }
  if (spec.size() >= 5 && spec.front() == '<' && spec.back() == '>') {
    const std::string_view range = spec.substr(1, spec.size() - 2);
    const size_t comma = range.find(',');
    return comma != std::string_view::npos && ParseInt(range.substr(0, comma), &option.min) &&
           ParseInt(range.substr(comma + 1), &option.max) && option.min <= option.max;
  }
  return false;
}

// Lines of a -Q help output after its header, as (first token, the rest trimmed).
std::vector<std::pair<std::string, std::string>> HelpRows(std::string_view text,
                                                          std::string_view header) {
  std::vector<std::pair<std::string, std::string>> rows;
  const size_t at = text.find(header);
  if (at == std::string_view::npos) return rows;
  std::istringstream lines{std::string(text.substr(at))};
  std::string line;
  std::getline(lines, line);  // the header
  while (std::getline(lines, line)) {
    const std::string_view row = Trim(line);
    if (row.empty() || row.front() != '-') continue;
    const size_t space = row.find_first_of(" \t");
    std::string token(row.substr(0, space));
    std::string rest(space == std::string_view::npos ? "" : Trim(row.substr(space)));
    rows.emplace_back(std::move(token), std::move(rest));
  }
  return rows;
}

bool ForOtherLanguages(std::string_view state) { return state.starts_with("[available in"); }

// Flags that GCC accepts only in the positive form.
bool HasNoNegativeForm(std::string_view name) {
  return name == "-fstack-protector-all" || name == "-fstack-protector-explicit" ||
         name == "-fstack-protector-strong";
}

// Listed among the optimizers but not one: live patching restricts inter-procedural
// optimization for kernel patches, and GCC refuses it beside most -fipa-* flags, so most
// states that chose it would not compile. CompilerGym leaves it out too.
constexpr std::string_view kNotOptimizations[] = {"-flive-patching"};

bool NotAnOptimization(std::string_view name) {
  return std::find(std::begin(kNotOptimizations), std::end(kNotOptimizations), name) !=
         std::end(kNotOptimizations);
}

}  // namespace

StatusOr<GccSpec> ParseGccSpec(std::string_view optimizers_help, std::string_view params_help) {
  const auto optimizers = HelpRows(optimizers_help, "The following options control optimizations:");
  if (optimizers.empty()) {
    return InvalidArgument("no optimization options in the output of --help=optimizers -Q");
  }
  GccOption olevel;
  olevel.kind = OptionKind::kOLevel;
  olevel.name = "-O";
  std::map<std::string, GccOption> flags;  // sorted by name, as are params below
  for (const auto& [token, state] : optimizers) {
    if (token == "-O<number>") {
      for (const char* level : {"0", "1", "2", "3"}) olevel.values.push_back(level);
      continue;
    }
    if (token.starts_with("-O")) {
      olevel.values.push_back(token.substr(2));
      continue;
    }
    // Options of other languages (C++, Modula-2) and aliases ("-fhandle-exceptions
    // -fexceptions") are not C options of their own.
    if (!token.starts_with("-f") || ForOtherLanguages(state) || state.starts_with("-")) continue;
    if (NotAnOptimization(token.substr(0, token.find('=')))) continue;
    const size_t eq = token.find('=');
    GccOption option;
    option.name = token.substr(0, eq);
    option.default_value = state;
    if (option.name.starts_with("-fno-")) continue;  // only ever listed for other languages
    if (eq == std::string::npos) {
      option.kind = OptionKind::kFlag;
      if (HasNoNegativeForm(option.name)) option.values = {""};
      flags.emplace(option.name, std::move(option));
      continue;
    }
    const std::string_view spec = std::string_view(token).substr(eq + 1);
    // "-falign-functions=" takes "n:m:n2:m2" strings: the plain flag stands for it.
    if (spec.empty()) continue;
    // -fpack-struct=<number> accepts only small powers of two.
    if (option.name == "-fpack-struct") {
      option.kind = OptionKind::kEnum;
      option.values = {"1", "2", "4", "8", "16"};
    } else if (!ParseValueSpec(spec, option)) {
      continue;
    }
    // A valued option replaces the plain flag of the same name.
    flags.insert_or_assign(option.name, std::move(option));
  }
  if (olevel.values.empty()) return InvalidArgument("no -O levels in --help=optimizers -Q");

  std::map<std::string, GccOption> params;
  for (const auto& [token, state] :
       HelpRows(params_help, "The following options control parameters:")) {
    if (!token.starts_with("--param=") || ForOtherLanguages(state)) continue;
    const size_t eq = token.find('=', std::string_view("--param=").size());
    if (eq == std::string::npos) continue;
    GccOption option;
    option.name = token.substr(0, eq);
    option.is_param = true;
    option.default_value = state;
    if (!ParseValueSpec(std::string_view(token).substr(eq + 1), option)) continue;
    int64_t value = 0;
    // An integer parameter without a numeric default is not one we can move by steps.
    if (option.kind == OptionKind::kInt && !ParseInt(state, &value)) continue;
    params.emplace(option.name, std::move(option));
  }

  GccSpec spec;
  spec.options.push_back(std::move(olevel));
  for (auto& [name, option] : flags) spec.options.push_back(std::move(option));
  for (auto& [name, option] : params) spec.options.push_back(std::move(option));
  return spec;
}

StatusOr<std::string> ResolveExecutable(const std::string& command) {
  auto executable = [](const std::string& path) { return ::access(path.c_str(), X_OK) == 0; };
  if (command.empty()) return InvalidArgument("empty compiler command");
  if (command.find('/') != std::string::npos) {
    if (!executable(command)) return NotFound("no executable " + command);
    // Absolute, but through the links as given: GCC names itself after the path it was run
    // by (--version of /usr/bin/gcc says "gcc", of the file it links to "x86_64-...-gcc-12").
    std::error_code error;
    const std::filesystem::path absolute = std::filesystem::absolute(command, error);
    if (error) return NotFound("no file " + command + ": " + error.message());
    return absolute.lexically_normal().string();
  }
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + command;
    if (executable(candidate)) return candidate;
  }
  return NotFound("command not found on $PATH: " + command);
}

namespace {

StatusOr<std::string> RunForOutput(const std::string& gcc, std::vector<std::string> args) {
  args.insert(args.begin(), gcc);
  const SandboxLimits limits{.timeout_seconds = 60};
  ASSIGN_OR_RETURN(ProcessResult r, RunSandboxed(args, limits));
  if (!r.ok()) {
    return InvalidArgument(gcc + " " + args[1] + ": " + r.Describe(limits) + ": " +
                           r.stderr_text.substr(0, 500));
  }
  return r.stdout_text;
}

StatusOr<std::shared_ptr<const GccSpec>> ReadSpec(const std::string& gcc) {
  auto not_gcc = [&gcc](const Status& why) {
    return InvalidArgument(gcc + " is not a GCC we can use: " + why.message());
  };
  StatusOr<std::string> version = RunForOutput(gcc, {"--version"});
  if (!version.ok()) return not_gcc(version.status());
  const std::string first_line = version->substr(0, version->find('\n'));
  // "gcc (Debian 12.2.0-14) 12.2.0": the last word is the version.
  const std::string number = first_line.substr(first_line.rfind(' ') + 1);
  int64_t major = 0;
  if (!ParseInt(std::string_view(number).substr(0, number.find('.')), &major)) {
    return not_gcc(InvalidArgument("no version in '" + first_line + "'"));
  }
  if (major < 5) return not_gcc(InvalidArgument("GCC 5 or newer needed, found " + first_line));
  StatusOr<std::string> optimizers = RunForOutput(gcc, {"-Q", "--help=optimizers"});
  if (!optimizers.ok()) return not_gcc(optimizers.status());
  StatusOr<std::string> params = RunForOutput(gcc, {"-Q", "--help=params"});
  if (!params.ok()) return not_gcc(params.status());
  StatusOr<GccSpec> spec = ParseGccSpec(*optimizers, *params);
  if (!spec.ok()) return not_gcc(spec.status());
  spec->gcc = gcc;
  spec->version = first_line;
  return std::make_shared<const GccSpec>(std::move(*spec));
}

}  // namespace

StatusOr<std::shared_ptr<const GccSpec>> LoadGccSpec(const std::string& gcc_bin) {
  ASSIGN_OR_RETURN(const std::string gcc, ResolveExecutable(gcc_bin));
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const GccSpec>> specs;
  std::lock_guard lock(mutex);
  auto it = specs.find(gcc);
  if (it != specs.end()) return it->second;
  ASSIGN_OR_RETURN(std::shared_ptr<const GccSpec> spec, ReadSpec(gcc));
  specs.emplace(gcc, spec);
  return spec;
}

}  // namespace compiler_gym::gcc_env
