// What both backends share: programs with their inputs and compiled kernels, cached per process
// (concurrent misses of one key compute it once), and measurements one at a time per device.
#include "envs/loop_tool/backend.h"

#include <fcntl.h>
#include <oneapi/tbb/task_arena.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>

#ifdef CG_WITH_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace compiler_gym::loop_tool_env {
namespace {

// Programs with their data: up to 2 GiB of it (HeldBytes), least recently used dropped first.
constexpr int64_t kProgramCacheBytes = int64_t{2} << 30;
// Compiled kernels kept per process.
constexpr size_t kKernelCacheEntries = 512;

struct ProgramCache {
  std::mutex mu;
  std::list<std::pair<std::string, std::shared_ptr<ProgramData>>> lru;  // front = newest
  int64_t bytes = 0;
};
ProgramCache& Programs() {
  static ProgramCache* cache = new ProgramCache();
  return *cache;
}

struct KernelEntry {
  uint64_t key;
  Device device;
  std::string program;
  std::vector<Loop> loops;
  std::shared_ptr<Kernel> kernel;
};
struct KernelCache {
  std::mutex mu;
  std::map<uint64_t, std::list<KernelEntry>::iterator> index;
  std::list<KernelEntry> lru;
  CacheStats stats;
};
KernelCache& Kernels() {
  static KernelCache* cache = new KernelCache();
  return *cache;
}

// What a program's data holds once measured on a device: its tensors (the inputs, and the CPU's
// output), the reductions' temporaries, and its output three times more (the reference, its
// errors, and the checked run's copy).
int64_t HeldBytes(const Program& program) {
  int64_t bytes = program.Bytes();
  for (int id = 0; id < static_cast<int>(program.nodes.size()); ++id) {
    if (program.IsReduction(id)) bytes += program.Elements(program.nodes[id].vars) * 4;
  }
  for (const TensorInfo& t : program.tensors) {
    if (!t.input) bytes += 3 * program.Elements(t.vars) * 4;
  }
  return bytes;
}

// Makes concurrent callers that miss a cache on the same key compute it once: the first
// computes, the others wait for it and look again (the envs of a make_vec often step to the
// same loop tree at once; each would otherwise compile, check and cache its own copy).
class InFlight {
 public:
  // What `find` (a cache lookup) finds, asked again after each wait for another caller that
  // computed `key`; or null, when this caller is to compute it and must call Done(key).
  template <typename Find>
  auto FindOrBegin(const std::string& key, Find find) -> decltype(find()) {
    for (;;) {
      if (auto found = find()) return found;
      std::unique_lock lock(mu_);
      if (keys_.insert(key).second) return nullptr;
      cv_.wait(lock, [&] { return !keys_.contains(key); });
    }
  }
  void Done(const std::string& key) {
    {
      std::lock_guard lock(mu_);
      keys_.erase(key);
    }
    cv_.notify_all();
  }

  // Done(key) when it goes out of scope, whichever way the computation ended.
  class Guard {
   public:
    Guard(InFlight& flights, std::string key) : flights_(flights), key_(std::move(key)) {}
    ~Guard() { flights_.Done(key_); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    InFlight& flights_;
    std::string key_;
  };

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> keys_;
};

// Adds to one of the stats under the cache's lock.
void Account(double CacheStats::* seconds, int64_t CacheStats::* count, double elapsed) {
  std::lock_guard lock(Kernels().mu);
  Kernels().stats.*seconds += elapsed;
  if (count != nullptr) ++(Kernels().stats.*count);
}

// A device's queue: one measurement at a time in this process (the mutex) and across processes
// (an flock on a file per device and user, so that envs in worker processes, isolation="process",
// do not time their kernels over each other either).
class DeviceQueueLock {
 public:
  // The file is opened per lock, not once per process: a forked worker (isolated env.fork())
  // shares its parent's open files, and flock treats one open file as one holder.
  explicit DeviceQueueLock(Device device) : lock_(Mutex(device)), fd_(OpenLockFile(device)) {
    if (fd_ >= 0) {
      while (flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
    }
  }
  ~DeviceQueueLock() {
    if (fd_ >= 0) close(fd_);  // releases the flock
  }
  DeviceQueueLock(const DeviceQueueLock&) = delete;
  DeviceQueueLock& operator=(const DeviceQueueLock&) = delete;

 private:
  static std::mutex& Mutex(Device device) {
    static std::mutex* mutexes = new std::mutex[2];
    return mutexes[device == Device::kCpu ? 0 : 1];
  }
  static int OpenLockFile(Device device) {
    const char* tmp = std::getenv("TMPDIR");
    const std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/compiler_gym-loop_tool-" +
                             DeviceName(device) + "-" + std::to_string(getuid()) + ".lock";
    // Without the file (a read-only temp dir) the queue is this process's alone.
    return open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  }

  std::lock_guard<std::mutex> lock_;
  const int fd_;
};

// On the CPU, compiles and measurements share the cores: a check or a timing beside a compile
// would measure the compile too. Compiles hold the gate together, a CPU measurement alone, so a
// batch's compiles still overlap each other and its host work, but never a timed run.
std::shared_mutex& CpuGate() {
  static std::shared_mutex* gate = new std::shared_mutex();
  return *gate;
}

}  // namespace

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

const char* DeviceName(Device device) { return device == Device::kCpu ? "cpu" : "cuda"; }

TimingOptions WithinBudget(TimingOptions options, double run_seconds) {
  if (run_seconds <= 0) return options;
  const int runs = static_cast<int>(std::clamp(options.budget_seconds / run_seconds, 1.0, 1e6));
  if (runs >= options.warmup + options.repetitions) return options;
  options.warmup = std::clamp(runs / 4, 0, options.warmup);  // the checked run warmed it
  options.repetitions = std::clamp(runs - options.warmup, 1, options.repetitions);
  return options;
}

size_t OutputTensor(const Program& program) {
  size_t output = 0;
  for (size_t t = 0; t < program.tensors.size(); ++t) {
    if (!program.tensors[t].input) output = t;
  }
  return output;
}

StatusOr<std::shared_ptr<ProgramData>> GetProgramData(const std::string& path) {
  ASSIGN_OR_RETURN(Program program, MakeProgram(path));
  ProgramCache& cache = Programs();
  static InFlight* flights = new InFlight();
  const std::shared_ptr<ProgramData> found =
      flights->FindOrBegin(program.key, [&]() -> std::shared_ptr<ProgramData> {
        std::lock_guard lock(cache.mu);
        for (auto it = cache.lru.begin(); it != cache.lru.end(); ++it) {
          if (it->first != program.key) continue;
          cache.lru.splice(cache.lru.begin(), cache.lru, it);
          return it->second;
        }
        return nullptr;
      });
  if (found) return found;
  InFlight::Guard done(*flights, program.key);
  auto data = std::make_shared<ProgramData>();
  data->program = std::move(program);
  data->inputs = MakeInputs(data->program);
  std::lock_guard lock(cache.mu);
  cache.lru.emplace_front(data->program.key, data);
  cache.bytes += HeldBytes(data->program);
  while (cache.bytes > kProgramCacheBytes && cache.lru.size() > 1) {
    cache.bytes -= HeldBytes(cache.lru.back().second->program);
    cache.lru.pop_back();  // envs that hold it keep it alive
  }
  return data;
}

StatusOr<std::shared_ptr<Kernel>> GetKernel(Device device, const Program& program,
                                            const std::vector<Loop>& loops,
                                            const std::string& ptxas) {
  const uint64_t key = LoopTreeHash(program, loops) * 2 + (device == Device::kCuda);
  KernelCache& cache = Kernels();
  static InFlight* flights = new InFlight();
  const std::string flight = std::to_string(key) + " " + program.key;
  const std::shared_ptr<Kernel> found =
      flights->FindOrBegin(flight, [&]() -> std::shared_ptr<Kernel> {
        std::lock_guard lock(cache.mu);
        auto it = cache.index.find(key);
        if (it == cache.index.end()) return nullptr;
        const KernelEntry& e = *it->second;
        if (e.device != device || e.program != program.key || e.loops != loops) return nullptr;
        cache.lru.splice(cache.lru.begin(), cache.lru, it->second);
        ++cache.stats.hits;
        return e.kernel;
      });
  if (found) return found;
  InFlight::Guard done(*flights, flight);
  // Compiled outside the cache's lock: envs on other threads compile other trees meanwhile.
  std::shared_lock gate(CpuGate(), std::defer_lock);
  if (device == Device::kCpu) gate.lock();
  // Counted once the gate is held: waiting for it is a measurement's time, not the compile's.
  const auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(std::shared_ptr<Kernel> kernel, device == Device::kCpu
                                                       ? CompileCpu(program, loops)
                                                       : CompileCuda(program, loops, ptxas));
  if (gate.owns_lock()) gate.unlock();
  std::lock_guard lock(cache.mu);
  ++cache.stats.compiles;
  cache.stats.compile_seconds += SecondsSince(start);
  if (auto it = cache.index.find(key); it != cache.index.end()) {
    cache.lru.erase(it->second);
    cache.index.erase(it);
  }
  cache.lru.push_front({key, device, program.key, loops, kernel});
  cache.index[key] = cache.lru.begin();
  while (cache.lru.size() > kKernelCacheEntries) {
    cache.index.erase(cache.lru.back().key);
    cache.lru.pop_back();
  }
  return kernel;
}

StatusOr<double> Measure(Device device, Kernel& kernel, ProgramData& data,
                         const TimingOptions& options) {
  if (!kernel.checked) {  // the reference is host work: outside the device's queue
    std::lock_guard lock(data.reference_mu);
    if (data.reference.output.empty()) {
      const auto start = std::chrono::steady_clock::now();
      // Isolated, as is the check: the parallel loops run while this thread holds a lock,
      // and must not pick up another env's step, which may want the same lock.
      data.reference = oneapi::tbb::this_task_arena::isolate(
          [&] { return ReferenceOutput(data.program, data.inputs); });
      Account(&CacheStats::reference_seconds, nullptr, SecondsSince(start));
    }
  }
  DeviceQueueLock queue(device);
  std::unique_lock gate(CpuGate(), std::defer_lock);
  if (device == Device::kCpu) gate.lock();
  TimingOptions timing = options;
  if (!kernel.checked) {
    timing.warmup = std::max(timing.warmup - 1, 0);  // the checked run, just made, warmed it up
    std::vector<float>& output = data.check_output[device == Device::kCpu ? 0 : 1];
    const auto start = std::chrono::steady_clock::now();
    StatusOr<double> run = kernel.RunChecked(data, data.reference, output);
    kernel.check = run.status();
    kernel.run_seconds = run.ok() ? *run : SecondsSince(start);
    kernel.checked = true;
    Account(&CacheStats::check_seconds, &CacheStats::checks, SecondsSince(start));
  }
  RETURN_IF_ERROR(kernel.check);
  NvtxRange range("loop_tool " + std::string(DeviceName(device)) + " " + data.program.key);
  const auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(const double seconds,
                   kernel.Time(data, WithinBudget(timing, kernel.run_seconds)));
  Account(&CacheStats::timing_seconds, &CacheStats::timings, SecondsSince(start));
  kernel.run_seconds = seconds;
  return seconds;
}

StatusOr<double> Kernel::RunChecked(ProgramData& data, const Reference& reference,
                                    std::vector<float>& scratch) {
  const auto start = std::chrono::steady_clock::now();
  RETURN_IF_ERROR(RunOnce(data, scratch));
  const double seconds = SecondsSince(start);
  // Isolated: the parallel comparison runs under the device's queue, and must not pick up
  // another env's step, which may want the queue.
  RETURN_IF_ERROR(oneapi::tbb::this_task_arena::isolate(
      [&] { return CheckOutput(reference, scratch.data()); }));
  return seconds;
}

StatusOr<std::vector<float>> RunOutput(Device device, Kernel& kernel, ProgramData& data) {
  DeviceQueueLock queue(device);
  std::vector<float> output;
  RETURN_IF_ERROR(kernel.RunOnce(data, output));
  return output;
}

StatusOr<double> CopyBandwidth(Device device, int64_t bytes, const TimingOptions& options) {
  if (bytes < 4) return InvalidArgument("copy_bandwidth needs at least 4 bytes");
  DeviceQueueLock queue(device);
  std::unique_lock gate(CpuGate(), std::defer_lock);
  if (device == Device::kCpu) gate.lock();
  double seconds = 0;
  if (device == Device::kCuda) {
    ASSIGN_OR_RETURN(seconds, CudaCopySeconds(bytes, options));
  } else {
    ASSIGN_OR_RETURN(seconds, CpuCopySeconds(bytes, options));
  }
  return 2.0 * static_cast<double>(bytes) / std::max(seconds, 1e-12) / 1e9;
}

Status DeviceAvailable(Device device) {
  return device == Device::kCpu ? Status::Ok() : CudaAvailable();
}

void AccountModuleLoad(double seconds) {
  Account(&CacheStats::module_load_seconds, nullptr, seconds);
}

CacheStats GetCacheStats() {
  std::lock_guard lock(Kernels().mu);
  return Kernels().stats;
}

#ifdef CG_WITH_NVTX
NvtxRange::NvtxRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
NvtxRange::~NvtxRange() { nvtxRangePop(); }
#else
NvtxRange::NvtxRange(const std::string&) {}
NvtxRange::~NvtxRange() {}
#endif

}  // namespace compiler_gym::loop_tool_env
