// loop_tool-v0's spaces, episode, parameters, Call methods and registration; the IR and actions
// are in loop_ir.cc, compiling and timing in the backends.
#include "envs/loop_tool/loop_tool_env.h"

#include <llvm/Config/llvm-config.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "envs/loop_tool/backend.h"

namespace compiler_gym::loop_tool_env {
namespace {

// The observation table: Observe(i) answers Spec().observation_spaces[i].
enum ObservationIndex { kActionState, kLoopTree, kFlops, kBandwidth, kRuntime };
// The actions, in the order of the "split" space; "simple" is its first four.
enum Action { kToggleMode, kUp, kDown, kToggleThread, kSplit };

constexpr std::string_view kScheme = "benchmark://";
constexpr std::string_view kCudaDataset = "loop_tool-cuda-v0";
constexpr std::string_view kCpuDataset = "loop_tool-cpu-v0";

StatusOr<int> ParseCount(const std::string& name, const std::string& value, int least) {
  int n = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (value.empty() || error != std::errc() || end != value.data() + value.size() || n < least) {
    return InvalidArgument(name + " must be an integer >= " + std::to_string(least) + ", got \"" +
                           value + "\"");
  }
  return n;
}

}  // namespace

LoopToolEnv::LoopToolEnv() : device_(Device::kCpu) {}
LoopToolEnv::~LoopToolEnv() = default;

const EnvSpec& LoopToolEnv::Spec() const {
  static const EnvSpec spec = [] {
    EnvSpec s;
    s.family = "loop_tool";
    // The code generator is this family's; LLVM compiles what it emits, for both devices.
    s.compiler_version = "LLVM " LLVM_VERSION_STRING " (ORC JIT for the CPU, NVPTX for CUDA)";
    const std::vector<std::string> names = {"toggle_mode", "up", "down", "toggle_thread", "split"};
    s.action_spaces = {
        {"simple",
         {names.begin(), names.begin() + 4},
         "CompilerGym's: toggle_mode (size / select), up and down (resize the loop at the cursor "
         "against its parent, or move the cursor), toggle_thread"},
        {"split", names,
         "simple, plus split: a new unit loop inside the cursor's, which up then grows (a real "
         "split; CompilerGym's was a no-op)"},
    };
    using enum SpaceKind;
    // Measurements depend on the device and the moment: neither deterministic nor portable.
    s.observation_spaces = {
        {.name = "action_state",
         .kind = kVector,
         .dtype = DType::kInt64,
         .shape = {3},
         .low = 0,
         .high = static_cast<double>(int64_t{1} << 36),
         .doc = "[cursor, size, tail] of the loop at the cursor"},
        {.name = "loop_tree",
         .kind = kText,
         .shape = {-1},
         .doc = "the loop nest as text, as loop_tool prints it (the cursor is action_state[0])"},
        {.name = "flops",
         .dtype = DType::kFloat64,
         .deterministic = false,
         .platform_dependent = true,
         .doc = "GFLOP/s of the program under this loop tree, measured on the device"},
        {.name = "bandwidth",
         .dtype = DType::kFloat64,
         .deterministic = false,
         .platform_dependent = true,
         .doc = "GB/s achieved: the program's tensors read or written once, over the run time"},
        {.name = "runtime",
         .dtype = DType::kFloat64,
         .deterministic = false,
         .platform_dependent = true,
         .doc = "seconds of one run: the median of the timed runs"},
    };
    const RewardSpec flops = {
        .name = "flops",
        .cost_observation = "flops",
        .deterministic = false,
        .platform_dependent = true,
        .doc =
            "GFLOP/s gained since the reward was last computed (its first computation in an "
            "episode, which reset() makes, gives the GFLOP/s itself)",
        .maximize = true};
    s.reward_spaces = {flops};
    return s;
  }();
  return spec;
}

Status LoopToolEnv::DoReset(const Benchmark& benchmark) {
  std::string_view uri = benchmark.uri;
  if (uri.starts_with(kScheme)) uri.remove_prefix(kScheme.size());
  const size_t slash = uri.find('/');
  const std::string_view dataset = uri.substr(0, slash);
  if (slash == std::string_view::npos || (dataset != kCudaDataset && dataset != kCpuDataset)) {
    return BenchmarkInitError("not a loop_tool benchmark: " + benchmark.uri +
                              " (expected benchmark://loop_tool-cuda-v0/<program> or "
                              "benchmark://loop_tool-cpu-v0/<program>)");
  }
  const Device device = dataset == kCudaDataset ? Device::kCuda : Device::kCpu;
  RETURN_IF_ERROR(DeviceAvailable(device));
  ASSIGN_OR_RETURN(data_, GetProgramData(std::string(uri.substr(slash + 1))));
  device_ = device;
  schedule_ = InitialSchedule(data_->program);
  seconds_.reset();
  return Status::Ok();
}

StatusOr<StepOutcome> LoopToolEnv::DoStep(std::span<const int> actions) {
  StepOutcome out;
  const Schedule before = schedule_;
  for (int action : actions) {
    switch (action) {
      case kToggleMode:
        ToggleMode(schedule_);
        break;
      case kUp:
        Up(data_->program, schedule_);
        break;
      case kDown:
        Down(data_->program, schedule_);
        break;
      case kToggleThread:
        ToggleThread(schedule_);
        break;
      case kSplit:
        Split(schedule_);
        break;
    }
  }
  out.action_had_no_effect = schedule_ == before;
  if (schedule_.loops != before.loops) seconds_.reset();
  return out;
}

StatusOr<double> LoopToolEnv::Seconds() {
  if (seconds_) return *seconds_;
  ASSIGN_OR_RETURN(std::shared_ptr<Kernel> kernel,
                   GetKernel(device_, data_->program, schedule_.loops, ptxas_));
  ASSIGN_OR_RETURN(
      const double seconds,
      Measure(device_, *kernel, *data_, TimingOptions{warmup_, repetitions_, budget_seconds_}));
  seconds_ = std::max(seconds, 1e-12);
  return *seconds_;
}

StatusOr<Observation> LoopToolEnv::Observe(int index) {
  if (!in_episode()) return NotInEpisode("observation");
  switch (index) {
    case kActionState: {
      const Loop& loop = schedule_.loops[schedule_.cursor];
      return Observation(std::vector<int64_t>{schedule_.cursor, loop.size, loop.tail});
    }
    case kLoopTree:
      return Observation(Text{DumpLoopTree(data_->program, schedule_, device_ == Device::kCpu)});
    case kFlops: {
      ASSIGN_OR_RETURN(const double s, Seconds());
      return Observation(static_cast<double>(data_->program.Flops()) / s / 1e9);
    }
    case kBandwidth: {
      ASSIGN_OR_RETURN(const double s, Seconds());
      return Observation(static_cast<double>(data_->program.Bytes()) / s / 1e9);
    }
    case kRuntime: {
      ASSIGN_OR_RETURN(const double s, Seconds());
      return Observation(s);
    }
  }
  return InvalidArgument("unknown observation space index " + std::to_string(index));
}

Status LoopToolEnv::SetParameter(const std::string& name, const std::string& value) {
  if (name == "warmup_runs") {
    ASSIGN_OR_RETURN(warmup_, ParseCount(name, value, 0));
    seconds_.reset();  // new timing options: the next observation measures afresh
    return Status::Ok();
  }
  if (name == "timing_repetitions") {
    ASSIGN_OR_RETURN(repetitions_, ParseCount(name, value, 1));
    seconds_.reset();
    return Status::Ok();
  }
  if (name == "timing_budget_seconds") {
    ASSIGN_OR_RETURN(const double seconds, ParseNumberParameter(name, value));
    if (seconds <= 0) {
      return InvalidArgument(name + " must be a number of seconds > 0, got \"" + value + "\"");
    }
    budget_seconds_ = seconds;
    seconds_.reset();
    return Status::Ok();
  }
  if (name == "cuda_ptxas") {  // checked where it runs: a path that fails fails the compile
    ptxas_ = value;
    return Status::Ok();
  }
  return Env::SetParameter(name, value);
}

StatusOr<std::string> LoopToolEnv::GetParameter(const std::string& name) const {
  if (name == "warmup_runs") return std::to_string(warmup_);
  if (name == "timing_repetitions") return std::to_string(repetitions_);
  if (name == "timing_budget_seconds") {
    char text[32];
    return std::string(text, std::to_chars(text, text + sizeof(text), budget_seconds_).ptr);
  }
  if (name == "cuda_ptxas") return ptxas_;
  return Env::GetParameter(name);
}

StatusOr<std::string> LoopToolEnv::Call(const std::string& method, const std::string& argument) {
  if (method == "ptx" || method == "llvm_ir" || method == "schedule" || method == "inputs" ||
      method == "run" || method == "kernel_hash") {
    if (!in_episode()) return NoEpisode(method + " before reset()");
  }
  if (method == "ptx") {
    return EmitPtx(data_->program, schedule_.loops, argument.empty() ? "sm_80" : argument);
  }
  if (method == "llvm_ir") return EmitCpuIr(data_->program, schedule_.loops);
  if (method == "inputs") return nlohmann::json(data_->inputs).dump();
  if (method == "run") {
    ASSIGN_OR_RETURN(std::shared_ptr<Kernel> kernel,
                     GetKernel(device_, data_->program, schedule_.loops, ptxas_));
    ASSIGN_OR_RETURN(std::vector<float> output, RunOutput(device_, *kernel, *data_));
    return nlohmann::json(output).dump();
  }
  if (method == "kernel_hash") {  // the code of the tree's kernel, cached or compiled now
    ASSIGN_OR_RETURN(std::shared_ptr<Kernel> kernel,
                     GetKernel(device_, data_->program, schedule_.loops, ptxas_));
    char hex[17];
    std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(kernel->code_hash));
    return std::string(hex);
  }
  if (method == "schedule") {
    nlohmann::json loops = nlohmann::json::array();
    for (const Loop& l : schedule_.loops) {
      loops.push_back({{"var", data_->program.vars[l.var].name},
                       {"size", l.size},
                       {"tail", l.tail},
                       {"thread", l.thread}});
    }
    return nlohmann::json{{"loops", loops},
                          {"cursor", schedule_.cursor},
                          {"mode", schedule_.select_mode ? "select" : "size"},
                          {"device", DeviceName(device_)},
                          {"program", data_->program.key},
                          {"flops_per_run", data_->program.Flops()},
                          {"bytes_per_run", data_->program.Bytes()}}
        .dump();
  }
  return Env::Call(method, argument);
}

StatusOr<std::unique_ptr<Env>> LoopToolEnv::DoFork() {
  // Every member is a value or shares immutable program data; the engine copies its own
  // episode bookkeeping over the copy's.
  return std::unique_ptr<Env>(new LoopToolEnv(*this));
}

namespace {

StatusOr<std::string> FamilyCall(const std::string& method, const std::string& argument) {
  if (method == "devices") {  // which devices run kernels here, and why not
    nlohmann::json out = nlohmann::json::object();
    for (Device d : {Device::kCpu, Device::kCuda}) {
      const Status s = DeviceAvailable(d);
      out[DeviceName(d)] = s.ok() ? "" : s.message();
    }
    return out.dump();
  }
  if (method == "cuda_arch") return CudaArch();
  if (method == "output_check_ptx") return CudaCheckPtx(argument.empty() ? "sm_80" : argument);
  if (method == "copy_bandwidth") {  // {"device": "cpu"|"cuda", "bytes": N}: GB/s of a copy
    const nlohmann::json args = nlohmann::json::parse(argument, nullptr, false);
    if (!args.is_object() || !args.contains("device") || !args.contains("bytes") ||
        !(args["device"] == "cpu" || args["device"] == "cuda") ||
        !args["bytes"].is_number_integer()) {
      return InvalidArgument(
          "copy_bandwidth takes {\"device\": \"cpu\" or \"cuda\", \"bytes\": an integer}, "
          "not " +
          argument);
    }
    const Device device = args["device"] == "cuda" ? Device::kCuda : Device::kCpu;
    ASSIGN_OR_RETURN(const double gbps,
                     CopyBandwidth(device, args["bytes"].get<int64_t>(), TimingOptions{}));
    return std::to_string(gbps);
  }
  if (method == "cache_stats") {
    const CacheStats stats = GetCacheStats();
    return nlohmann::json{{"hits", stats.hits},
                          {"compiles", stats.compiles},
                          {"checks", stats.checks},
                          {"timings", stats.timings},
                          {"compile_seconds", stats.compile_seconds},
                          {"module_load_seconds", stats.module_load_seconds},
                          {"reference_seconds", stats.reference_seconds},
                          {"check_seconds", stats.check_seconds},
                          {"timing_seconds", stats.timing_seconds}}
        .dump();
  }
  return Unimplemented("loop_tool has no operation " + method);
}

}  // namespace

Status RegisterLoopToolEnvs(Registry& registry) {
  FamilyEntry family;
  family.name = "loop_tool";
  family.doc = "Loop nests compiled for an NVIDIA GPU or the CPU, rewarded by measured FLOP/s";
  family.call = FamilyCall;
  RETURN_IF_ERROR(registry.AddFamily(std::move(family)));
  return registry.Add(EnvEntry{"loop_tool-v0", "loop_tool", "action_state", "flops",
                               "benchmark://loop_tool-cpu-v0/1024",
                               "loop_tool: reshape a loop nest, rewarded by measured FLOP/s",
                               [] { return std::make_unique<LoopToolEnv>(); }});
}

}  // namespace compiler_gym::loop_tool_env
