// Compiling and measuring loop_tool kernels on a device (the CPU through LLVM's ORC JIT, an
// NVIDIA GPU through NVPTX and the CUDA driver API, opened with dlopen at run time, so nothing
// here needs a GPU or the CUDA toolkit to build).
//
// Compiles run on the caller's thread (the vector engine's workers compile in parallel) and are
// cached by the loop tree's hash. Measurements on a device are serialized through that device's
// queue (a lock), so no two timings overlap. The first run of every kernel is checked against
// the program's reference output; a kernel that computes a wrong result is an error, and stays
// one.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/status.h"
#include "envs/loop_tool/loop_ir.h"

namespace compiler_gym::loop_tool_env {

enum class Device { kCpu, kCuda };
const char* DeviceName(Device device);

// A program with its data, shared by every env on it (cached by program key, least recently
// used dropped past a byte budget).
struct ProgramData {
  Program program;
  std::vector<std::vector<float>> inputs;
  // Computed on first use, under reference_mu (it is large for large programs).
  std::mutex reference_mu;
  Reference reference;
  // Used only under their device's queue.
  std::vector<std::vector<float>> host_buffers;  // CPU: the plan's outputs and temporaries
  std::shared_ptr<void> device_buffers;          // CUDA: the plan's buffers on the GPU
  // Per device: where a new kernel's output lands to be checked, kept so that checks after
  // the first write to memory already mapped.
  std::vector<float> check_output[2];
};
StatusOr<std::shared_ptr<ProgramData>> GetProgramData(const std::string& path);

struct TimingOptions {
  int warmup = 3;
  int repetitions = 20;
  // Runs beyond this many seconds are dropped (one timed run always stays; the checked first
  // run warms a new kernel up): a GPU schedule that walks 2^26 elements on a few threads takes
  // seconds per run, and 23 of them would hold the device's queue for minutes.
  double budget_seconds = 1.0;
};

// The options cut to the runs that fit their budget, for a kernel whose last run took
// `run_seconds` (unchanged when that is unknown, 0, or they all fit).
TimingOptions WithinBudget(TimingOptions options, double run_seconds);

// A compiled kernel of one program and loop tree for one device.
class Kernel {
 public:
  virtual ~Kernel() = default;
  // Runs the kernel once on the data and fills `output` (the program's output tensor).
  virtual Status RunOnce(ProgramData& data, std::vector<float>& output) = 0;
  // The median seconds of one run, over `repetitions` timed runs after `warmup` untimed ones.
  virtual StatusOr<double> Time(ProgramData& data, const TimingOptions& options) = 0;
  // The first run's check: runs the kernel once and compares the program's output with the
  // reference; returns the run's wall seconds. By default RunOnce into `scratch`, compared on
  // the host; the CPU compares its output buffer where it lies, without a copy.
  virtual StatusOr<double> RunChecked(ProgramData& data, const Reference& reference,
                                      std::vector<float>& scratch);

  // Set by Measure, under the device's queue, once the first run's output matched the
  // reference (or did not); read before the queue is taken to skip host work.
  std::atomic<bool> checked = false;
  Status check;
  // Seconds of the last run Measure saw (the checked run's wall time, then the timed median):
  // how many runs fit the timing budget.
  double run_seconds = 0;
  // Runs made so far (checks, warm-ups, calibrations, timed runs), under the device's queue:
  // what the timing budget bounds.
  int64_t runs = 0;
  // A hash of the code the device runs (the object file the JIT linked, the PTX the driver
  // loaded), set by the compile: a cached kernel and a fresh compile of its tree agree on it.
  uint64_t code_hash = 0;
};

// The program's output: its one tensor that is not an input.
size_t OutputTensor(const Program& program);

// The compiled kernel of the loop tree, from the process's compile cache or compiled now.
// `ptxas`: on CUDA, the path of the toolkit's ptxas to assemble the PTX with, in this thread,
// before the driver loads the machine code; empty: the driver's JIT assembles it in the load,
// which the driver serializes across threads.
StatusOr<std::shared_ptr<Kernel>> GetKernel(Device device, const Program& program,
                                            const std::vector<Loop>& loops,
                                            const std::string& ptxas = "");

// Times a kernel through the device's queue, checking its output first if it never was.
StatusOr<double> Measure(Device device, Kernel& kernel, ProgramData& data,
                         const TimingOptions& options);

// Runs a kernel once through the device's queue and returns the program's output, unchecked.
StatusOr<std::vector<float>> RunOutput(Device device, Kernel& kernel, ProgramData& data);

// The device's copy bandwidth in GB/s (bytes read plus bytes written, over the median time of a
// copy of `bytes`): the peak that a kernel's achieved bandwidth is compared with.
StatusOr<double> CopyBandwidth(Device device, int64_t bytes, const TimingOptions& options);

// kUnavailable (EnvironmentNotSupported in Python) unless the device can run kernels here: the
// CUDA driver library loads and has a device.
Status DeviceAvailable(Device device);

// Compile-cache counters and where measurements spent their time (wall seconds, summed over
// threads), for tests and benchmarks: compiling, the programs' reference outputs, checking new
// kernels (a run, the copy back and the comparison) and the timed runs.
struct CacheStats {
  int64_t hits = 0;
  int64_t compiles = 0;
  int64_t checks = 0;
  int64_t timings = 0;
  double compile_seconds = 0;
  // Of compile_seconds: loading kernels onto the GPU (cuModuleLoadData, the driver's PTX JIT),
  // which the driver may serialize across threads.
  double module_load_seconds = 0;
  double reference_seconds = 0;
  double check_seconds = 0;
  double timing_seconds = 0;
};
CacheStats GetCacheStats();
// Adds a kernel load's wall time to module_load_seconds (the CUDA backend's compile).
void AccountModuleLoad(double seconds);
// Wall seconds since `start`, as the stats count them.
double SecondsSince(std::chrono::steady_clock::time_point start);

// The backends (cpu_backend.cc, cuda_backend.cc). The copies time one copy of `bytes` on every
// thread the backend runs kernels on.
StatusOr<std::shared_ptr<Kernel>> CompileCpu(const Program& program,
                                             const std::vector<Loop>& loops);
StatusOr<std::shared_ptr<Kernel>> CompileCuda(const Program& program,
                                              const std::vector<Loop>& loops,
                                              const std::string& ptxas = "");
// The PTX assembled by the program `ptxas` for `arch` (sm_90, ...): a CUDA binary (cubin) that
// the driver loads without its JIT. Needs no GPU.
StatusOr<std::string> AssemblePtx(const std::string& ptx, const std::string& arch,
                                  const std::string& ptxas);
Status CudaAvailable();
StatusOr<double> CudaCopySeconds(int64_t bytes, const TimingOptions& options);
StatusOr<double> CpuCopySeconds(int64_t bytes, const TimingOptions& options);
// The optimized LLVM IR of the CPU kernel, as the JIT compiles it.
StatusOr<std::string> EmitCpuIr(const Program& program, const std::vector<Loop>& loops);
// PTX for an sm_XY architecture (e.g. "sm_80"), made without a GPU.
StatusOr<std::string> EmitPtx(const Program& program, const std::vector<Loop>& loops,
                              const std::string& arch);
// "sm_XY" of the GPU in use (capped at what LLVM 19's NVPTX emits, sm_90).
StatusOr<std::string> CudaArch();
// The PTX of the CUDA backend's output check (a new kernel's first run is compared with the
// reference on the GPU) for an sm_XY architecture, made without a GPU.
StatusOr<std::string> CudaCheckPtx(const std::string& arch);
// Ok where that check runs on this GPU; else why not (new kernels are then checked on the host).
Status CudaOutputCheckLoaded();

// Scoped NVTX range around a measurement (a no-op when built without the NVTX headers).
class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name);
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace compiler_gym::loop_tool_env
