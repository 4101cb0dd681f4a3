// Lowering of a loop_tool program and schedule to LLVM IR, for the CPU (ORC JIT) and for NVIDIA
// GPUs (NVPTX). Internal to envs/loop_tool: it includes LLVM.
//
// The program runs as phases, one per node whose result must exist whole before its users run:
// each reduction (into a temporary buffer, initialized to the reduction's identity) and each
// write. Pointwise nodes are fused into the phase that uses them (recomputed where two phases
// use one). A phase's loops are the schedule's loops over the variables of its domain, in
// schedule order. Threaded loops: on the GPU every one becomes a dimension of the grid (the
// first-listed slowest); on the CPU the first one is split across threads. Where threads share
// an output element (a threaded loop over a reduced variable), the phase accumulates atomically.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/status.h"
#include "envs/loop_tool/loop_ir.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace compiler_gym::loop_tool_env {

enum class Target { kCpu, kNvptx };

struct Buffer {
  int64_t elements = 0;
  int tensor = -1;  // a program tensor, or -1 for a reduction's temporary
  float init = 0;   // temporaries: the identity every run starts from
};

struct Phase {
  int node = 0;               // the reduction or write it computes
  std::vector<int> loops;     // schedule loop indices, outermost first
  bool atomic = false;        // threads share output elements
  int parallel_loop = -1;     // CPU: the schedule loop split across threads; -1: none
  int64_t parallel_trip = 1;  // CPU: its full trip count
  int64_t threads = 1;        // GPU: threads of the grid (product of the threaded trip counts)
};

struct KernelPlan {
  std::vector<Buffer> buffers;  // the program's tensors in order, then temporaries
  std::vector<Phase> phases;    // in execution order; function "phase<i>" runs phase i
};

// The full trip count of a schedule loop: size, plus one for a tail.
inline int64_t Trip(const Loop& loop) { return loop.size + (loop.tail > 0 ? 1 : 0); }

KernelPlan PlanKernels(const Program& program, const std::vector<Loop>& loops, Target target);

// One function per phase. CPU: void phase<i>(float** buffers, int64 begin, int64 end), where
// [begin, end) is the range of the parallel loop's iterations to run (anything covering
// [0, parallel_trip) when the phase has none). GPU: a kernel void phase<i>(float* b0, ...)
// over plan.phases[i].threads threads (blocks of any size; threads past the count return).
std::unique_ptr<llvm::Module> Lower(const Program& program, const std::vector<Loop>& loops,
                                    const KernelPlan& plan, Target target,
                                    llvm::LLVMContext& context);

// Lower(), then the module made for `machine` (data layout, triple, its CPU and features on
// every function) and optimized by LLVM's O3 pipeline: what each backend compiles.
std::unique_ptr<llvm::Module> LowerOptimized(const Program& program, const std::vector<Loop>& loops,
                                             const KernelPlan& plan, Target target,
                                             llvm::TargetMachine& machine,
                                             llvm::LLVMContext& context);

}  // namespace compiler_gym::loop_tool_env
