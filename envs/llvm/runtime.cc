// Linking objects into executables with clang-19, running them in the sandbox (measured runs
// after warm-ups) and comparing two runs' exit codes and output for validate().
#include "envs/llvm/runtime.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "envs/llvm/codegen.h"
#include "envs/llvm/module_util.h"

namespace compiler_gym::llvm_env {

namespace {

constexpr double kBuildTimeoutSeconds = 300;

// Runs clang-19 in `dir` with `args`; the error carries clang's diagnostics.
Status RunClang(const std::string& dir, std::vector<std::string> args, const std::string& what) {
  ASSIGN_OR_RETURN(const std::string clang, ClangPath());
  args.insert(args.begin(), clang);
  const SandboxLimits limits{.timeout_seconds = kBuildTimeoutSeconds};
  ASSIGN_OR_RETURN(ProcessResult r, RunSandboxed(args, limits, dir));
  if (r.timed_out) return DeadlineExceeded("building " + what + " " + r.Describe(limits));
  if (!r.ok()) {
    return Aborted("cannot build " + what + ": clang-19 " + r.Describe(limits) + "\n" +
                   r.stderr_text.substr(0, 4000));
  }
  return Status::Ok();
}

// The first line of a program's error output that says something (sanitizers open their
// reports with a rule of '=' signs).
std::string FirstMessage(const std::string& text) {
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    if (std::any_of(line.begin(), line.end(), [](unsigned char c) { return std::isalpha(c); })) {
      return line.size() > 300 ? line.substr(0, 300) + "..." : line;
    }
    start = end + 1;
  }
  return "";
}

std::string FirstLine(const std::string& text, size_t limit = 200) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() > limit) line = line.substr(0, limit) + "...";
  return line;
}

}  // namespace

Executable::Executable(std::string dir)
    : dir_(std::move(dir)), path_(dir_ + "/a.out"), owner_(::getpid()) {}

Executable::~Executable() {
  if (owned_here()) RemoveTree(dir_);
}

bool Executable::owned_here() const { return owner_ == ::getpid(); }

StatusOr<std::unique_ptr<Executable>> LinkExecutable(const std::string& object,
                                                     const Benchmark& benchmark,
                                                     double codegen_seconds) {
  const auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(std::string dir, MakeTempDir("compiler_gym-exe"));
  auto executable = std::make_unique<Executable>(dir);  // removes dir on any error below
  RETURN_IF_ERROR(WriteFile(dir + "/a.o", object));
  std::vector<std::string> args = {"a.o", "-o", "a.out"};
  args.insert(args.end(), benchmark.link_args.begin(), benchmark.link_args.end());
  RETURN_IF_ERROR(RunClang(dir, args, benchmark.uri));
  executable->set_build_seconds(
      codegen_seconds +
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return executable;
}

StatusOr<int64_t> ExecutableTextSize(const Executable& executable) {
  std::ifstream in(executable.path(), std::ios::binary);
  const std::string binary((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in && !in.eof()) return Internal("cannot read " + executable.path());
  return TextSectionSize(binary);
}

StatusOr<std::unique_ptr<Executable>> CompileExecutable(const std::string& bitcode,
                                                        const Benchmark& benchmark,
                                                        const std::vector<std::string>& flags) {
  const auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(std::string dir, MakeTempDir("compiler_gym-exe"));
  auto executable = std::make_unique<Executable>(dir);
  RETURN_IF_ERROR(WriteFile(dir + "/module.bc", bitcode));
  std::vector<std::string> args = flags;
  args.insert(args.end(), {"module.bc", "-o", "a.out"});
  args.insert(args.end(), benchmark.link_args.begin(), benchmark.link_args.end());
  RETURN_IF_ERROR(RunClang(dir, args, benchmark.uri));
  executable->set_build_seconds(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return executable;
}

StatusOr<ProcessResult> RunOnce(const Executable& executable, const Benchmark& benchmark,
                                const RunConfig& config,
                                const std::vector<std::string>& extra_env) {
  std::vector<std::string> argv = {executable.path()};
  argv.insert(argv.end(), benchmark.run_args.begin(), benchmark.run_args.end());
  // The program under test: no network, no writes outside its scratch directory.
  const SandboxLimits limits{.timeout_seconds = config.timeout_seconds,
                             .memory_bytes = config.memory_bytes,
                             .isolated = true};
  return RunSandboxed(argv, limits, "", extra_env);
}

StatusOr<ProgramRuns> RunExecutable(const Executable& executable, const Benchmark& benchmark,
                                    const RunConfig& config,
                                    const std::vector<std::string>& extra_env) {
  if (config.runs < 1 || config.warmup_runs < 0) {
    return InvalidArgument("runs must be >= 1 and warm-up runs >= 0");
  }
  const SandboxLimits limits{.timeout_seconds = config.timeout_seconds,
                             .memory_bytes = config.memory_bytes};
  ProgramRuns out;
  for (int i = 0; i < config.warmup_runs + config.runs; ++i) {
    ASSIGN_OR_RETURN(out.last, RunOnce(executable, benchmark, config, extra_env));
    if (out.last.timed_out) {
      return DeadlineExceeded(benchmark.uri + ": the program " + out.last.Describe(limits));
    }
    if (!out.last.ok()) {
      return Aborted(benchmark.uri + ": the program ended with " + out.last.Describe(limits) +
                     ": " + FirstMessage(out.last.stderr_text));
    }
    if (i >= config.warmup_runs) out.runtimes.push_back(out.last.wall_seconds);
  }
  return out;
}

std::vector<std::string> CompareRuns(const ProcessResult& reference, const ProcessResult& run,
                                     const SandboxLimits& limits) {
  std::vector<std::string> problems;
  if (run.timed_out || run.signal != 0 || run.exit_code != reference.exit_code) {
    problems.push_back("the program ended with " + run.Describe(limits) +
                       " where the unoptimized one ended with " + reference.Describe(limits) +
                       (run.stderr_text.empty() ? "" : ": " + FirstMessage(run.stderr_text)));
  }
  if (run.stdout_text != reference.stdout_text) {
    // Name the first line that differs: outputs can be long.
    size_t line = 1, i = 0;
    const std::string &a = reference.stdout_text, &b = run.stdout_text;
    while (i < a.size() && i < b.size() && a[i] == b[i]) {
      if (a[i] == '\n') ++line;
      ++i;
    }
    const size_t a_start = a.rfind('\n', i == 0 ? 0 : i - 1);
    const size_t line_start = a_start == std::string::npos ? 0 : a_start + 1;
    problems.push_back("standard output differs from the unoptimized program's at line " +
                       std::to_string(line) + ": expected \"" +
                       FirstLine(a.substr(std::min(line_start, a.size()))) + "\", got \"" +
                       FirstLine(b.substr(std::min(line_start, b.size()))) + "\"");
  }
  return problems;
}

std::vector<HostCache> HostCaches(const std::string& cpu_root) {
  namespace fs = std::filesystem;
  std::vector<HostCache> caches = {
      {"l1i_cache"}, {"l1d_cache"}, {"l2_cache"}, {"l3_cache"}, {"l4_cache"}};
  auto read = [](const fs::path& file) {
    std::ifstream in(file);
    std::string text;
    std::getline(in, text);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    return text;
  };
  // CPUs in numeric order, so that each size is cpu0's, as before, where sizes differ.
  std::map<long, fs::path> cpus;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(cpu_root, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 3 && name.rfind("cpu", 0) == 0 &&
        std::all_of(name.begin() + 3, name.end(), [](char c) { return std::isdigit(c); })) {
      cpus.emplace(std::stol(name.substr(3)), entry.path());
    }
  }
  std::map<std::string, std::set<std::string>> sharers;  // per cache name
  for (const auto& [number, cpu] : cpus) {
    for (int index = 0; index < 16; ++index) {
      const fs::path dir = cpu / "cache" / ("index" + std::to_string(index));
      const std::string level = read(dir / "level"), type = read(dir / "type");
      const std::string size = read(dir / "size");
      if (level.empty() || size.empty()) continue;
      std::string name = "l" + level;
      if (level == "1") name += type == "Instruction" ? "i" : "d";
      name += "_cache";
      auto cache = std::find_if(caches.begin(), caches.end(),
                                [&](const HostCache& c) { return c.name == name; });
      if (cache == caches.end()) continue;
      if (cache->size < 0) {
        int64_t bytes = std::atoll(size.c_str());
        if (size.back() == 'K') bytes *= 1024;
        if (size.back() == 'M') bytes *= 1024 * 1024;
        cache->size = bytes;
      }
      // Without the list of sharers, each CPU's cache counts as its own.
      const std::string shared = read(dir / "shared_cpu_list");
      sharers[name].insert(shared.empty() ? std::to_string(number) : shared);
    }
  }
  for (HostCache& cache : caches) cache.count = static_cast<int>(sharers[cache.name].size());
  return caches;
}

}  // namespace compiler_gym::llvm_env
