// The loop-nest IR of loop_tool-v0: programs over named variables, and the schedule (one loop
// order shared by every node) that the agent reshapes.
//
// A Program is a dataflow graph of nodes (read, write, add, sub, mul, div, max, exp), each
// defined over a set of variables. A binary node whose single input has more variables than
// the node reduces over the missing ones (add: sum, max: maximum), as in loop_tool. Tensors
// are float32, row-major over their variables.
//
// A Schedule is an ordered list of loops (variable, size, tail, thread). The loops of one
// variable nest in list order; with k the extent covered by the variable's loops inside it, a
// loop (s, t) covers s * k + t elements (s blocks of k, then a tail of t < k), so the fold
// acc = acc * s + t from the innermost loop outwards gives the variable's extent.
// CompilerGym's loop_tool semantics are the one-variable case: order = [(N,0),(1,0),(1,0)],
// thread = [1,0,0], a cursor over the loops, and a mode (size or select).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"

namespace compiler_gym::loop_tool_env {

enum class Op { kRead, kWrite, kAdd, kSub, kMul, kDiv, kMax, kExp };
const char* OpName(Op op);

struct Var {
  std::string name;
  int64_t extent = 0;
};

struct TensorInfo {
  std::string name;
  std::vector<int> vars;  // row-major order
  bool input = true;      // else written by a write node
};

struct Node {
  Op op = Op::kRead;
  std::vector<int> inputs;  // node indices, all earlier in the list
  std::vector<int> vars;    // the variables the node's value is defined over
  int tensor = -1;          // read / write: the tensor
};

struct Program {
  std::string key;  // the benchmark path that made it, canonical: "add/1024", "matmul/8x8x8"
  std::vector<Var> vars;
  std::vector<TensorInfo> tensors;
  std::vector<Node> nodes;  // topological order

  // A node that reduces: add or max with one input defined over more variables.
  bool IsReduction(int node) const;
  // The variables a node's computation iterates over: its input's for a reduction, else its own.
  std::vector<int> Domain(int node) const;
  int64_t Elements(const std::vector<int>& vars) const;
  // Nominal floating-point operations of one run: each arithmetic node once per point of its
  // domain (2 M N K for matmul, N for add).
  int64_t Flops() const;
  // Nominal bytes moved by one run: every tensor read or written once.
  int64_t Bytes() const;
};

// Programs by benchmark path: "N" or "add/N" (C[a] = A[a] + B[a]), "matmul/MxNxK"
// (C[m,n] = sum_k A[m,k] B[k,n]), "reduce/RxC" (C[r] = sum_c A[r,c]), "softmax/RxC" (softmax
// of each row). Extents are 1 to 2^30, and a program has at most 2^31 elements per tensor.
// Anything else is kBenchmarkInit.
StatusOr<Program> MakeProgram(std::string_view path);

struct Loop {
  int var = 0;
  int64_t size = 1;
  int64_t tail = 0;
  bool thread = false;
  friend bool operator==(const Loop&, const Loop&) = default;
};

// The most loops a schedule may have (split refuses beyond it).
inline constexpr int kMaxLoops = 16;

struct Schedule {
  std::vector<Loop> loops;
  int cursor = 0;
  bool select_mode = false;  // CompilerGym's mode: "size" (false) or "select" (true)
  friend bool operator==(const Schedule&, const Schedule&) = default;
};

// The starting schedule: for each variable in order, (extent, 0), (1, 0), (1, 0), the first
// loop of each variable that is not reduced threaded; cursor 0, size mode.
Schedule InitialSchedule(const Program& program);

// The extent the loops of `var` cover (the fold above).
int64_t Covered(const std::vector<Loop>& loops, int var);
// What the loops of loop i's variable inside it cover: the block one iteration of i steps by.
int64_t InnerCoverage(const std::vector<Loop>& loops, int i);
// kInvalidArgument unless every variable's loops cover its extent exactly, every loop has
// size >= 1 and 0 <= tail < the extent covered inside it, and the cursor is a loop.
Status CheckSchedule(const Program& program, const Schedule& schedule);

// The actions. Each returns whether the schedule changed.
// resize: moves `increment` (+1 or -1) into the size of the loop at the cursor, taking it from
// (or giving it back to) the nearest enclosing loop of the same variable, whose size and tail
// absorb the rest: CompilerGym's arithmetic (a tail on the cursor's loop is dropped first).
bool Resize(const Program& program, Schedule& schedule, int increment);
// up / down: resize in size mode, move the cursor (wrapping around) in select mode.
bool Up(const Program& program, Schedule& schedule);
bool Down(const Program& program, Schedule& schedule);
bool ToggleMode(Schedule& schedule);
bool ToggleThread(Schedule& schedule);
// split: a new loop (1, 0) of the cursor's variable just inside the cursor's loop; up on it
// then tiles the cursor's loop. Refused (false) at kMaxLoops.
bool Split(Schedule& schedule);

// The loop tree as loop_tool prints it, CompilerGym's `loop_tree`: one line per loop
// ("for a' in 341 r 1 : L1 [thread]", primes counting a variable's loops; threaded loops on
// the CPU say "cpu_parallel [thread]"), each node in its own copy of the innermost loop.
std::string DumpLoopTree(const Program& program, const Schedule& schedule, bool cpu);
// A hash of what the generated code depends on: the program and the loops (not the cursor or
// mode), the same in every run: the compile cache's key.
uint64_t LoopTreeHash(const Program& program, const std::vector<Loop>& loops);

// The program's output computed directly, in double precision (what every generated kernel is
// checked against), with, per element, the spread of the error that float32 arithmetic makes
// computing it (a standard deviation: each rounding's error, up to 2^-24 of the result, adding
// up as a random walk; a reduction's partial sums rounded in its serial order, whose partial
// sums are as large as any kernel's).
struct Reference {
  std::vector<float> output;
  std::vector<float> error;
};
// `inputs` holds one array per input tensor, in tensor order.
Reference ReferenceOutput(const Program& program, const std::vector<std::vector<float>>& inputs);

// The input data of a program: uniform in [-1, 1), from a generator seeded by the program key.
std::vector<std::vector<float>> MakeInputs(const Program& program);

// How many of the reference's errors a kernel's output may be off by, at each element. Wide
// enough for float32 results in any order on any device (the maximum of 2^26 normal errors is
// under 6 of them), and narrow enough that a schedule that drops or repeats a term of a
// reduction is outside it unless the term is smaller than that many roundings of the sum.
constexpr double kErrorsAllowed = 8;

// Whether a kernel's output matches the reference within kErrorsAllowed errors at every
// element. kInternal names the first element that does not.
Status CheckOutput(const Reference& reference, const float* output);
// CheckOutput's error for `element`, where the kernel computed `got`: also what a check made on
// the GPU reports.
Status WrongOutputAt(const Reference& reference, size_t element, float got);

}  // namespace compiler_gym::loop_tool_env
