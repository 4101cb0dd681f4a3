// The CPU backend: the lowered module optimized at O3 for the host and compiled by LLVM's ORC
// JIT (LLJIT), one JIT per kernel so that dropping a kernel frees its code.
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ObjectTransformLayer.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/xxhash.h>
#include <llvm/Target/TargetMachine.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <mutex>

#include "engine/space.h"
#include "envs/loop_tool/backend.h"
#include "envs/loop_tool/lowering.h"

namespace compiler_gym::loop_tool_env {
namespace {

using PhaseFn = void (*)(float**, int64_t, int64_t);

std::string ErrorText(llvm::Error error) { return llvm::toString(std::move(error)); }

void InitializeNative() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

// The median seconds of `repetitions` (at least one) timed calls of `run`, after `warmup`
// untimed ones, on a steady clock.
double MedianSeconds(int warmup, int repetitions, const std::function<void()>& run) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < warmup; ++i) run();
  std::vector<double> samples;
  for (int r = 0; r < std::max(repetitions, 1); ++r) {
    const auto start = Clock::now();
    run();
    samples.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  return Median(std::move(samples));
}

// The threads a parallel loop is split across: the machine's, in an arena of their own so that
// a kernel measured from inside the vector engine's arena does not share its workers.
tbb::task_arena& KernelArena() {
  static tbb::task_arena* arena = new tbb::task_arena();
  return *arena;
}

class CpuKernel final : public Kernel {
 public:
  CpuKernel(std::unique_ptr<llvm::orc::LLJIT> jit, std::vector<PhaseFn> phases, KernelPlan plan)
      : jit_(std::move(jit)), phases_(std::move(phases)), plan_(std::move(plan)) {}

  Status RunOnce(ProgramData& data, std::vector<float>& output) override {
    std::vector<float*> buffers = PoisonedBuffers(data);
    Run(buffers);
    ++runs;
    const size_t t = OutputTensor(data.program);
    output.assign(buffers[t], buffers[t] + plan_.buffers[t].elements);
    return Status::Ok();
  }

  // The output is checked in its buffer: copying 2^26 floats out took about as long as the run.
  StatusOr<double> RunChecked(ProgramData& data, const Reference& reference,
                              std::vector<float>&) override {
    std::vector<float*> buffers = PoisonedBuffers(data);
    const auto start = std::chrono::steady_clock::now();
    Run(buffers);
    ++runs;
    const double seconds = SecondsSince(start);
    const float* output = buffers[OutputTensor(data.program)];
    RETURN_IF_ERROR(tbb::this_task_arena::isolate([&] { return CheckOutput(reference, output); }));
    return seconds;
  }

  StatusOr<double> Time(ProgramData& data, const TimingOptions& options) override {
    std::vector<float*> buffers = Buffers(data);
    for (int i = 0; i < options.warmup; ++i) Run(buffers);
    // Time batches of runs at least 20 us long, so the clock's resolution does not matter. A
    // run known to take longer (the checked run's, or the last median) needs no calibration
    // run, which the timing budget does not count.
    const bool calibrate = run_seconds < 20e-6;
    const double once = calibrate ? MedianSeconds(0, 1, [&] { Run(buffers); }) : run_seconds;
    const int batch = static_cast<int>(std::clamp(20e-6 / std::max(once, 1e-9), 1.0, 1000.0));
    runs += options.warmup + calibrate + int64_t{std::max(options.repetitions, 1)} * batch;
    return MedianSeconds(0, options.repetitions,
                         [&] {
                           for (int i = 0; i < batch; ++i) Run(buffers);
                         }) /
           batch;
  }

 private:
  // The plan's buffers: the program's inputs themselves (kernels only read them), and the
  // outputs and temporaries, made once per program (the same for every schedule of it). Made
  // whole before they are kept: an allocation that fails (bad_alloc under the worker's memory
  // limit) leaves none, not a list shorter than the plan's.
  std::vector<float*> Buffers(ProgramData& data) {
    const auto is_input = [&](const Buffer& b) {
      return b.tensor >= 0 && data.program.tensors[b.tensor].input;
    };
    if (data.host_buffers.empty()) {
      std::vector<std::vector<float>> made;
      for (const Buffer& b : plan_.buffers) {
        if (!is_input(b)) made.emplace_back(b.elements, 0.0f);
      }
      data.host_buffers = std::move(made);
    }
    std::vector<float*> pointers;
    size_t input = 0, own = 0;
    for (const Buffer& b : plan_.buffers) {
      pointers.push_back(is_input(b) ? data.inputs[input++].data()
                                     : data.host_buffers[own++].data());
    }
    return pointers;
  }

  // The buffers, with the output poisoned (a quiet NaN): it is shared by every kernel of the
  // program, and a kernel that skips elements must not pass on what an earlier one wrote.
  std::vector<float*> PoisonedBuffers(ProgramData& data) {
    std::vector<float*> buffers = Buffers(data);
    const size_t t = OutputTensor(data.program);
    std::fill_n(buffers[t], plan_.buffers[t].elements, std::nanf(""));
    return buffers;
  }

  void Run(std::vector<float*>& buffers) {
    for (size_t i = 0; i < plan_.buffers.size(); ++i) {
      if (plan_.buffers[i].tensor < 0) {
        std::fill_n(buffers[i], plan_.buffers[i].elements, plan_.buffers[i].init);
      }
    }
    for (size_t p = 0; p < phases_.size(); ++p) {
      const Phase& phase = plan_.phases[p];
      PhaseFn fn = phases_[p];
      float** args = buffers.data();
      if (phase.parallel_loop < 0 || phase.parallel_trip < 2) {
        fn(args, 0, phase.parallel_trip);
        continue;
      }
      KernelArena().execute([&] {
        const int64_t chunks =
            std::min<int64_t>(phase.parallel_trip, 4 * KernelArena().max_concurrency());
        const int64_t grain = (phase.parallel_trip + chunks - 1) / chunks;
        tbb::parallel_for(
            tbb::blocked_range<int64_t>(0, phase.parallel_trip, grain),
            [&](const tbb::blocked_range<int64_t>& r) { fn(args, r.begin(), r.end()); },
            tbb::simple_partitioner());
      });
    }
  }

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::vector<PhaseFn> phases_;
  KernelPlan plan_;
};

}  // namespace

StatusOr<double> CpuCopySeconds(int64_t bytes, const TimingOptions& options) {
  std::vector<char> from(bytes, 1), to(bytes, 0);
  return MedianSeconds(options.warmup, options.repetitions, [&] {
    KernelArena().execute([&] {
      const int64_t chunk = std::max<int64_t>(bytes / (4 * KernelArena().max_concurrency()), 4096);
      tbb::parallel_for(
          tbb::blocked_range<int64_t>(0, bytes, chunk),
          [&](const tbb::blocked_range<int64_t>& r) {
            std::memcpy(to.data() + r.begin(), from.data() + r.begin(), r.size());
          },
          tbb::simple_partitioner());
    });
  });
}

namespace {

// The host's JIT target, at the optimization level the kernels are built with.
StatusOr<llvm::orc::JITTargetMachineBuilder> HostTarget() {
  InitializeNative();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) return Internal("no JIT for this host: " + ErrorText(builder.takeError()));
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  return std::move(*builder);
}

// The kernel's module, lowered and optimized for this host as the JIT compiles it.
StatusOr<std::unique_ptr<llvm::Module>> HostModule(const Program& program,
                                                   const std::vector<Loop>& loops,
                                                   const KernelPlan& plan,
                                                   llvm::orc::JITTargetMachineBuilder& builder,
                                                   llvm::LLVMContext& context) {
  auto machine = builder.createTargetMachine();
  if (!machine) return Internal("no target machine: " + ErrorText(machine.takeError()));
  return LowerOptimized(program, loops, plan, Target::kCpu, **machine, context);
}

}  // namespace

StatusOr<std::string> EmitCpuIr(const Program& program, const std::vector<Loop>& loops) {
  ASSIGN_OR_RETURN(llvm::orc::JITTargetMachineBuilder builder, HostTarget());
  llvm::LLVMContext context;
  ASSIGN_OR_RETURN(
      std::unique_ptr<llvm::Module> module,
      HostModule(program, loops, PlanKernels(program, loops, Target::kCpu), builder, context));
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, nullptr);
  return text;
}

StatusOr<std::shared_ptr<Kernel>> CompileCpu(const Program& program,
                                             const std::vector<Loop>& loops) {
  ASSIGN_OR_RETURN(llvm::orc::JITTargetMachineBuilder builder, HostTarget());
  KernelPlan plan = PlanKernels(program, loops, Target::kCpu);
  auto context = std::make_unique<llvm::LLVMContext>();
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> module,
                   HostModule(program, loops, plan, builder, *context));

  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(builder)).create();
  if (!jit) return Internal("cannot start the JIT: " + ErrorText(jit.takeError()));
  // expf and friends come from the process's own libm.
  auto libm = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!libm) return Internal(ErrorText(libm.takeError()));
  (*jit)->getMainJITDylib().addGenerator(std::move(*libm));
  // The object code is hashed on its way to the linker (the lookups below compile it, on this
  // thread): what tells a cached kernel from a fresh compile of its tree, byte for byte.
  auto code_hash = std::make_shared<uint64_t>(0);
  (*jit)->getObjTransformLayer().setTransform(
      [code_hash](std::unique_ptr<llvm::MemoryBuffer> object)
          -> llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> {
        *code_hash = *code_hash * 0x9e3779b97f4a7c15ull + llvm::xxh3_64bits(object->getBuffer());
        return object;
      });
  if (llvm::Error e =
          (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context)))) {
    return Internal("the JIT refused the kernel: " + ErrorText(std::move(e)));
  }
  std::vector<PhaseFn> phases;
  for (size_t i = 0; i < plan.phases.size(); ++i) {
    auto address = (*jit)->lookup("phase" + std::to_string(i));
    if (!address) return Internal("JIT compile failed: " + ErrorText(address.takeError()));
    phases.push_back(address->toPtr<PhaseFn>());
  }
  auto kernel = std::make_shared<CpuKernel>(std::move(*jit), std::move(phases), std::move(plan));
  kernel->code_hash = *code_hash;
  return std::shared_ptr<Kernel>(std::move(kernel));
}

}  // namespace compiler_gym::loop_tool_env
