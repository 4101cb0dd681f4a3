// Programs parsed from benchmark paths, the schedule's actions, loop tree dumps and hashes, and
// the reference output (in double precision, with the error float32 may make) kernels must match.
#include "envs/loop_tool/loop_ir.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <random>
#include <set>

namespace compiler_gym::loop_tool_env {
namespace {

constexpr int64_t kMaxExtent = int64_t{1} << 30;
constexpr int64_t kMaxTensorElements = int64_t{1} << 31;
// Points of one node's loop nest: matmul/4096^3 has 2^36. Past it the reference output (about a
// billion points a second) and the first, untiled kernel would take minutes, and the products
// of sizes up to 2^30 would overflow.
constexpr double kMaxNodePoints = 0x1p36;

uint64_t Fnv1a(uint64_t hash, std::string_view bytes) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}
constexpr uint64_t kFnvOffset = 14695981039346656037ull;

StatusOr<int64_t> ParseExtent(std::string_view text, std::string_view path) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return BenchmarkInitError("loop_tool program \"" + std::string(path) + "\": \"" +
                              std::string(text) + "\" is not an integer");
  }
  if (value < 1 || value > kMaxExtent) {
    return BenchmarkInitError("loop_tool program \"" + std::string(path) + "\": size " +
                              std::to_string(value) + " is outside [1, 2^30]");
  }
  return value;
}

std::vector<std::string_view> SplitOn(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string_view::npos ? text.npos : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

// Builds programs node by node; binary nodes are defined over the union of their inputs'
// variables (broadcasting), in variable order.
struct Builder {
  Program p;
  int Var(std::string name, int64_t extent) {
    p.vars.push_back({std::move(name), extent});
    return static_cast<int>(p.vars.size()) - 1;
  }
  int Tensor(std::string name, std::vector<int> vars, bool input) {
    p.tensors.push_back({std::move(name), std::move(vars), input});
    return static_cast<int>(p.tensors.size()) - 1;
  }
  int Add(Node node) {
    p.nodes.push_back(std::move(node));
    return static_cast<int>(p.nodes.size()) - 1;
  }
  int Read(int tensor) { return Add({Op::kRead, {}, p.tensors[tensor].vars, tensor}); }
  int Write(int tensor, int input) {
    return Add({Op::kWrite, {input}, p.tensors[tensor].vars, tensor});
  }
  int Binary(Op op, int a, int b) {
    std::set<int> vars(p.nodes[a].vars.begin(), p.nodes[a].vars.end());
    vars.insert(p.nodes[b].vars.begin(), p.nodes[b].vars.end());
    return Add({op, {a, b}, {vars.begin(), vars.end()}, -1});
  }
  int Unary(Op op, int a) { return Add({op, {a}, p.nodes[a].vars, -1}); }
  int Reduce(Op op, int a, std::vector<int> keep) { return Add({op, {a}, std::move(keep), -1}); }
};

// Calls fn(index) for every point of the variables' product space, the last variable fastest;
// index is indexed by variable id (entries of other variables are left as they are).
void ForEachPoint(const Program& p, const std::vector<int>& vars, std::vector<int64_t>& index,
                  const std::function<void()>& fn, size_t level = 0) {
  if (level == vars.size()) {
    fn();
    return;
  }
  const int v = vars[level];
  for (int64_t i = 0; i < p.vars[v].extent; ++i) {
    index[v] = i;
    ForEachPoint(p, vars, index, fn, level + 1);
  }
}

// ForEachPoint in parallel over the values of vars[0] (each task with an index of its own):
// the points of one value of vars[0] run in the sequential order, so a reduction whose slot is
// fixed by vars[0] sums in the same order, and to the same bits, on any number of threads.
void ForEachPointParallel(const Program& p, const std::vector<int>& vars,
                          const std::function<void(std::vector<int64_t>&)>& fn) {
  std::vector<int64_t> index(p.vars.size(), 0);
  if (vars.empty()) {
    fn(index);
    return;
  }
  const std::vector<int> rest(vars.begin() + 1, vars.end());
  oneapi::tbb::parallel_for(int64_t{0}, p.vars[vars[0]].extent, [&](int64_t i) {
    std::vector<int64_t> mine(p.vars.size(), 0);
    mine[vars[0]] = i;
    ForEachPoint(p, rest, mine, [&] { fn(mine); });
  });
}

int64_t Offset(const Program& p, const std::vector<int>& vars, const std::vector<int64_t>& index) {
  int64_t offset = 0;
  for (int v : vars) offset = offset * p.vars[v].extent + index[v];
  return offset;
}

}  // namespace

const char* OpName(Op op) {
  switch (op) {
    case Op::kRead:
      return "read";
    case Op::kWrite:
      return "write";
    case Op::kAdd:
      return "add";
    case Op::kSub:
      return "sub";
    case Op::kMul:
      return "mul";
    case Op::kDiv:
      return "div";
    case Op::kMax:
      return "max";
    case Op::kExp:
      return "exp";
  }
  return "?";
}

bool Program::IsReduction(int node) const {
  const Node& n = nodes[node];
  return (n.op == Op::kAdd || n.op == Op::kMax) && n.inputs.size() == 1 &&
         nodes[n.inputs[0]].vars.size() > n.vars.size();
}

std::vector<int> Program::Domain(int node) const {
  return IsReduction(node) ? nodes[nodes[node].inputs[0]].vars : nodes[node].vars;
}

int64_t Program::Elements(const std::vector<int>& var_ids) const {
  int64_t n = 1;
  for (int v : var_ids) n *= vars[v].extent;
  return n;
}

int64_t Program::Flops() const {
  int64_t flops = 0;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    if (nodes[i].op != Op::kRead && nodes[i].op != Op::kWrite) flops += Elements(Domain(i));
  }
  return flops;
}

int64_t Program::Bytes() const {
  int64_t bytes = 0;
  for (const TensorInfo& t : tensors) bytes += Elements(t.vars) * 4;
  return bytes;
}

StatusOr<Program> MakeProgram(std::string_view path) {
  std::vector<std::string_view> parts = SplitOn(path, '/');
  if (parts.size() == 1) parts.insert(parts.begin(), "add");  // CompilerGym's "<N>"
  if (parts.size() != 2) {
    return BenchmarkInitError("unknown loop_tool program \"" + std::string(path) +
                              "\": expected N, add/N, matmul/MxNxK, reduce/RxC or softmax/RxC");
  }
  const std::string_view kind = parts[0];
  std::vector<int64_t> dims;
  for (std::string_view d : SplitOn(parts[1], 'x')) {
    ASSIGN_OR_RETURN(int64_t extent, ParseExtent(d, path));
    dims.push_back(extent);
  }
  const size_t want = kind == "add"                             ? 1
                      : kind == "matmul"                        ? 3
                      : (kind == "reduce" || kind == "softmax") ? 2
                                                                : 0;
  if (want == 0) {
    return BenchmarkInitError("unknown loop_tool program \"" + std::string(kind) +
                              "\": expected add, matmul, reduce or softmax");
  }
  if (dims.size() != want) {
    return BenchmarkInitError("loop_tool program \"" + std::string(path) + "\": " +
                              std::string(kind) + " takes " + std::to_string(want) + " sizes");
  }
  Builder b;
  if (kind == "add") {
    const int a = b.Var("a", dims[0]);
    const int A = b.Tensor("A", {a}, true), B = b.Tensor("B", {a}, true);
    const int C = b.Tensor("C", {a}, false);
    const int x = b.Read(A), y = b.Read(B);  // sequenced: node numbers are part of the dump
    b.Write(C, b.Binary(Op::kAdd, x, y));
  } else if (kind == "matmul") {
    const int m = b.Var("m", dims[0]), n = b.Var("n", dims[1]), k = b.Var("k", dims[2]);
    const int A = b.Tensor("A", {m, k}, true), B = b.Tensor("B", {k, n}, true);
    const int C = b.Tensor("C", {m, n}, false);
    const int x = b.Read(A), y = b.Read(B);
    b.Write(C, b.Reduce(Op::kAdd, b.Binary(Op::kMul, x, y), {m, n}));
  } else if (kind == "reduce") {
    const int r = b.Var("r", dims[0]), c = b.Var("c", dims[1]);
    const int A = b.Tensor("A", {r, c}, true), C = b.Tensor("C", {r}, false);
    b.Write(C, b.Reduce(Op::kAdd, b.Read(A), {r}));
  } else {
    const int r = b.Var("r", dims[0]), c = b.Var("c", dims[1]);
    const int A = b.Tensor("A", {r, c}, true), C = b.Tensor("C", {r, c}, false);
    const int x = b.Read(A);
    const int max = b.Reduce(Op::kMax, x, {r});
    const int e = b.Unary(Op::kExp, b.Binary(Op::kSub, x, max));
    const int sum = b.Reduce(Op::kAdd, e, {r});
    b.Write(C, b.Binary(Op::kDiv, e, sum));
  }
  for (int id = 0; id < static_cast<int>(b.p.nodes.size()); ++id) {
    double points = 1;
    for (int v : b.p.Domain(id)) points *= static_cast<double>(b.p.vars[v].extent);
    if (points > kMaxNodePoints) {
      return BenchmarkInitError("loop_tool program \"" + std::string(path) +
                                "\": more than 2^36 points in one loop nest");
    }
  }
  for (const TensorInfo& t : b.p.tensors) {
    if (b.p.Elements(t.vars) > kMaxTensorElements) {
      return BenchmarkInitError("loop_tool program \"" + std::string(path) + "\": tensor " +
                                t.name + " has more than 2^31 elements");
    }
  }
  // Built from the sizes, not the text: "add/016" is "add/16", its data and its kernels.
  b.p.key = std::string(kind) + "/";
  for (size_t i = 0; i < dims.size(); ++i) b.p.key += (i ? "x" : "") + std::to_string(dims[i]);
  return std::move(b.p);
}

Schedule InitialSchedule(const Program& program) {
  std::set<int> reduced;
  for (int i = 0; i < static_cast<int>(program.nodes.size()); ++i) {
    if (!program.IsReduction(i)) continue;
    const Node& n = program.nodes[i];
    for (int v : program.nodes[n.inputs[0]].vars) {
      if (std::find(n.vars.begin(), n.vars.end(), v) == n.vars.end()) reduced.insert(v);
    }
  }
  Schedule s;
  for (int v = 0; v < static_cast<int>(program.vars.size()); ++v) {
    s.loops.push_back({v, program.vars[v].extent, 0, !reduced.contains(v)});
    s.loops.push_back({v, 1, 0, false});
    s.loops.push_back({v, 1, 0, false});
  }
  return s;
}

int64_t Covered(const std::vector<Loop>& loops, int var) {
  int64_t acc = 1;
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
    if (it->var == var) acc = acc * it->size + it->tail;
  }
  return acc;
}

int64_t InnerCoverage(const std::vector<Loop>& loops, int i) {
  int64_t k = 1;
  for (int j = static_cast<int>(loops.size()) - 1; j > i; --j) {
    if (loops[j].var == loops[i].var) k = k * loops[j].size + loops[j].tail;
  }
  return k;
}

Status CheckSchedule(const Program& program, const Schedule& schedule) {
  const int num_vars = static_cast<int>(program.vars.size());
  std::vector<int64_t> inner(num_vars, 1);
  for (auto it = schedule.loops.rbegin(); it != schedule.loops.rend(); ++it) {
    if (it->var < 0 || it->var >= num_vars) return InvalidArgument("a loop has no variable");
    if (it->size < 1 || it->tail < 0 || it->tail >= inner[it->var]) {
      return InvalidArgument("loop (" + std::to_string(it->size) + ", " + std::to_string(it->tail) +
                             ") of " + program.vars[it->var].name + " is out of range");
    }
    inner[it->var] = inner[it->var] * it->size + it->tail;
  }
  for (int v = 0; v < num_vars; ++v) {
    if (inner[v] != program.vars[v].extent) {
      return InvalidArgument("the loops of " + program.vars[v].name + " cover " +
                             std::to_string(inner[v]) + " of " +
                             std::to_string(program.vars[v].extent));
    }
  }
  if (schedule.cursor < 0 || schedule.cursor >= static_cast<int>(schedule.loops.size())) {
    return InvalidArgument("the cursor is not on a loop");
  }
  return Status::Ok();
}

bool Resize(const Program& program, Schedule& schedule, int increment) {
  std::vector<Loop>& loops = schedule.loops;
  const int c = schedule.cursor;
  const int var = loops[c].var;
  int p = c - 1;
  while (p >= 0 && loops[p].var != var) --p;
  if (p < 0) return false;  // the variable's outermost loop has nothing to trade with
  const int64_t k = InnerCoverage(loops, c);
  const int64_t x = loops[c].size, y = loops[c].tail;
  if (increment < 0 && y != 0) increment = 0;  // drop the tail before shrinking
  const int64_t size = x + increment;
  const int64_t extent = program.vars[var].extent;
  if (size < 1 || size > extent) return false;
  const int64_t n = loops[p].size * (x * k + y) + loops[p].tail;  // what the parent covers
  const int64_t d = size * k;
  const int64_t a = n / d, b = n % d;
  if (a < 1) return false;
  const Loop before_p = loops[p], before_c = loops[c];
  loops[p].size = a;
  loops[p].tail = b;
  loops[c].size = size;
  loops[c].tail = 0;
  return !(loops[p] == before_p && loops[c] == before_c);
}

bool Up(const Program& program, Schedule& schedule) {
  if (!schedule.select_mode) return Resize(program, schedule, 1);
  const int n = static_cast<int>(schedule.loops.size());
  const int before = schedule.cursor;
  schedule.cursor = (schedule.cursor + 1) % n;
  return schedule.cursor != before;
}

bool Down(const Program& program, Schedule& schedule) {
  if (!schedule.select_mode) return Resize(program, schedule, -1);
  const int n = static_cast<int>(schedule.loops.size());
  const int before = schedule.cursor;
  schedule.cursor = (schedule.cursor + n - 1) % n;
  return schedule.cursor != before;
}

bool ToggleMode(Schedule& schedule) {
  schedule.select_mode = !schedule.select_mode;
  return true;
}

bool ToggleThread(Schedule& schedule) {
  schedule.loops[schedule.cursor].thread = !schedule.loops[schedule.cursor].thread;
  return true;
}

bool Split(Schedule& schedule) {
  if (static_cast<int>(schedule.loops.size()) >= kMaxLoops) return false;
  const Loop unit{schedule.loops[schedule.cursor].var, 1, 0, false};
  schedule.loops.insert(schedule.loops.begin() + schedule.cursor + 1, unit);
  return true;
}

std::string DumpLoopTree(const Program& program, const Schedule& schedule, bool cpu) {
  // loop_tool's dump, as CompilerGym prints it: every node sits in its own copy of the
  // innermost loop (loop_tool's disable_reuse there), and labels number the tree's nodes in
  // order, the nodes' own lines counted (so the copies are L2, L4, ... for three loops).
  std::string out;
  std::vector<int> seen(program.vars.size(), 0);
  int label = 0;
  const auto loop_line = [&](const Loop& l, int depth, int primes) {
    out += std::string(depth, ' ') + "for " + program.vars[l.var].name + std::string(primes, '\'') +
           " in " + std::to_string(l.size);
    if (l.tail) out += " r " + std::to_string(l.tail);
    out += " : L" + std::to_string(label++);
    if (l.thread) out += cpu ? " cpu_parallel [thread]" : " [thread]";
    out += "\n";
  };
  const int outer = static_cast<int>(schedule.loops.size()) - 1;
  for (int i = 0; i < outer; ++i) loop_line(schedule.loops[i], i, seen[schedule.loops[i].var]++);
  const Loop& innermost = schedule.loops[outer];
  const int primes = seen[innermost.var];
  for (int i = 0; i < static_cast<int>(program.nodes.size()); ++i) {
    loop_line(innermost, outer, primes);
    const Node& n = program.nodes[i];
    std::string vars;
    for (int v : n.vars) vars += (vars.empty() ? "" : ", ") + program.vars[v].name;
    std::string args;
    for (int in : n.inputs) args += (args.empty() ? "%" : ", %") + std::to_string(in);
    out += std::string(outer + 1, ' ') + "%" + std::to_string(i) + "[" + vars + "] <- " +
           OpName(n.op) + "(" + args + ")\n";
    ++label;
  }
  return out;
}

uint64_t LoopTreeHash(const Program& program, const std::vector<Loop>& loops) {
  uint64_t h = Fnv1a(kFnvOffset, program.key);
  for (const Loop& l : loops) {
    const int64_t row[4] = {l.var, l.size, l.tail, l.thread};
    h = Fnv1a(h, std::string_view(reinterpret_cast<const char*>(row), sizeof(row)));
  }
  return h;
}

std::vector<std::vector<float>> MakeInputs(const Program& program) {
  // A generator with a fixed algorithm (mt19937_64) and a portable map to floats, so the data
  // are the same on every platform.
  std::mt19937_64 gen(Fnv1a(kFnvOffset, program.key));
  std::vector<std::vector<float>> inputs;
  for (const TensorInfo& t : program.tensors) {
    if (!t.input) continue;
    std::vector<float> values(program.Elements(t.vars));
    for (float& v : values) v = static_cast<float>((gen() >> 40) * 0x1p-24 * 2.0 - 1.0);
    inputs.push_back(std::move(values));
  }
  return inputs;
}

namespace {

// float32's unit roundoff: a rounded result r is off by up to u |r|.
constexpr double kUnitRoundoff = 0x1p-24;

// A value in double precision, with the spread of what float32 arithmetic computing it in any
// reasonable order gets (a standard deviation: rounding errors add up as a random walk).
struct Value {
  double v = 0;
  double err = 0;
};

double Rounding(double v) { return kUnitRoundoff * std::fabs(v); }
double Square(double v) { return v * v; }

// Strides of a row-major tensor over `vars` along each program variable (0 along the others).
std::vector<int64_t> Strides(const Program& p, const std::vector<int>& vars) {
  std::vector<int64_t> strides(p.vars.size(), 0);
  int64_t stride = 1;
  for (auto it = vars.rbegin(); it != vars.rend(); ++it) {
    strides[*it] = stride;
    stride *= p.vars[*it].extent;
  }
  return strides;
}

// A sum over one variable of the products of two inputs, into a 2-d output (matmul's), added
// up in a tight loop over strides rather than by the per-point interpreter below, in the same
// order per element, so to the same sums (2 cores: matmul/256^3 0.47 s to 0.02 s, 1024^3 0.8 s
// where the interpreter would take half a minute). False (nothing done) for other reductions.
bool SumOfProducts(const Program& p, int id, const std::vector<const float*>& tensor_data,
                   std::vector<Value>& acc) {
  const Node& n = p.nodes[id];
  if (n.op != Op::kAdd || n.vars.size() != 2) return false;
  const int product = n.inputs[0];
  if (p.nodes[product].op != Op::kMul || p.IsReduction(product)) return false;
  const Node& x = p.nodes[p.nodes[product].inputs[0]];
  const Node& y = p.nodes[p.nodes[product].inputs[1]];
  if (x.op != Op::kRead || y.op != Op::kRead) return false;
  std::vector<int> reduced;
  for (int v : p.Domain(id)) {
    if (v != n.vars[0] && v != n.vars[1]) reduced.push_back(v);
  }
  if (reduced.size() != 1) return false;
  const int v0 = n.vars[0], v1 = n.vars[1], k = reduced[0];
  const std::vector<int64_t> sx = Strides(p, x.vars), sy = Strides(p, y.vars);
  const float* xs = tensor_data[x.tensor];
  const float* ys = tensor_data[y.tensor];
  const int64_t e1 = p.vars[v1].extent, ek = p.vars[k].extent;
  oneapi::tbb::parallel_for(int64_t{0}, p.vars[v0].extent, [&](int64_t i0) {
    Value* row = &acc[i0 * e1];
    for (int64_t kk = 0; kk < ek; ++kk) {
      const float* xk = xs + i0 * sx[v0] + kk * sx[k];
      const float* yk = ys + i0 * sy[v0] + kk * sy[k];
      for (int64_t i1 = 0; i1 < e1; ++i1) {
        const double t = static_cast<double>(xk[i1 * sx[v1]]) * yk[i1 * sy[v1]];
        Value& slot = row[i1];
        slot.v += t;
        slot.err += Square(Rounding(t)) + Square(Rounding(slot.v));
      }
    }
  });
  return true;
}

}  // namespace

Reference ReferenceOutput(const Program& program, const std::vector<std::vector<float>>& inputs) {
  const int num_nodes = static_cast<int>(program.nodes.size());
  std::vector<const float*> tensor_data(program.tensors.size(), nullptr);  // inputs only
  for (int t = 0, i = 0; t < static_cast<int>(program.tensors.size()); ++t) {
    if (program.tensors[t].input) tensor_data[t] = inputs[i++].data();
  }
  std::vector<std::vector<Value>> reduced(num_nodes);  // materialized reductions
  std::function<Value(int, const std::vector<int64_t>&)> eval =
      [&](int id, const std::vector<int64_t>& index) -> Value {
    const Node& n = program.nodes[id];
    if (program.IsReduction(id)) return reduced[id][Offset(program, n.vars, index)];
    switch (n.op) {
      case Op::kRead:  // the inputs are float32 values: exact
        return {tensor_data[n.tensor][Offset(program, n.vars, index)], 0};
      case Op::kExp: {
        const Value a = eval(n.inputs[0], index);
        const double v = std::exp(a.v);
        // exp in hardware or libm: a few units of roundoff (PTX's ex2 of x log2 e among them).
        return {v, std::hypot(v * a.err, 4 * Rounding(v))};
      }
      case Op::kWrite:
        return eval(n.inputs[0], index);
      default:
        break;
    }
    const Value a = eval(n.inputs[0], index), b = eval(n.inputs[1], index);
    switch (n.op) {
      case Op::kAdd:
      case Op::kSub: {
        const double v = n.op == Op::kAdd ? a.v + b.v : a.v - b.v;
        return {v, std::sqrt(Square(a.err) + Square(b.err) + Square(Rounding(v)))};
      }
      case Op::kMul: {
        const double v = a.v * b.v;
        return {v, std::sqrt(Square(b.v * a.err) + Square(a.v * b.err) + Square(Rounding(v)))};
      }
      case Op::kDiv: {
        const double v = a.v / b.v;
        return {v, std::sqrt(Square(a.err / b.v) + Square(v * b.err / b.v) + Square(Rounding(v)))};
      }
      case Op::kMax:
        return {std::max(a.v, b.v), std::max(a.err, b.err)};
      default:
        return {};
    }
  };
  Reference reference;
  for (int id = 0; id < num_nodes; ++id) {
    const Node& n = program.nodes[id];
    if (program.IsReduction(id)) {
      const bool is_max = n.op == Op::kMax;
      // Per slot: the value, and the variance of its float32 error: each term's own, plus the
      // rounding of every partial sum (in this serial order, whose partial sums are as large
      // as any a kernel's order makes; tiles and vector lanes make them smaller).
      std::vector<Value> acc(program.Elements(n.vars), {is_max ? -INFINITY : 0.0, 0.0});
      // Split over a kept variable (each task then owns its slots), when there is one.
      std::vector<int> domain = program.Domain(id);
      if (!n.vars.empty()) {
        std::stable_partition(domain.begin(), domain.end(), [&](int v) { return v == n.vars[0]; });
      }
      auto accumulate = [&](std::vector<int64_t>& index) {
        Value& slot = acc[Offset(program, n.vars, index)];
        const Value t = eval(n.inputs[0], index);
        if (is_max) {
          slot = {std::max(slot.v, t.v), std::max(slot.err, t.err)};
        } else {
          slot.v += t.v;
          slot.err += Square(t.err) + Square(Rounding(slot.v));  // a variance until the end
        }
      };
      if (!SumOfProducts(program, id, tensor_data, acc)) {
        if (n.vars.empty()) {
          std::vector<int64_t> index(program.vars.size(), 0);
          ForEachPoint(program, domain, index, [&] { accumulate(index); });
        } else {
          ForEachPointParallel(program, domain, accumulate);
        }
      }
      if (!is_max) {
        for (Value& slot : acc) slot.err = std::sqrt(slot.err);
      }
      reduced[id] = std::move(acc);
    } else if (n.op == Op::kWrite) {
      const int64_t elements = program.Elements(n.vars);
      reference.output.assign(elements, 0.0f);
      reference.error.assign(elements, 0.0f);
      ForEachPointParallel(program, n.vars, [&](std::vector<int64_t>& index) {
        const int64_t at = Offset(program, n.vars, index);
        const Value v = eval(id, index);
        reference.output[at] = static_cast<float>(v.v);
        // The float32 result is rounded once more, and so is the reference.
        reference.error[at] = static_cast<float>(v.err + 2 * Rounding(v.v));
      });
    }
  }
  return reference;
}

Status CheckOutput(const Reference& reference, const float* output) {
  // In parallel (a check of 2^26 elements took longer than the kernel's timed runs); the
  // first wrong element is reported, whatever the thread count.
  using Range = oneapi::tbb::blocked_range<size_t>;
  const size_t size = reference.output.size();
  const size_t first_wrong = oneapi::tbb::parallel_reduce(
      Range(0, size, size_t{1} << 16), size,
      [&](const Range& r, size_t first) {
        for (size_t i = r.begin(); i < r.end() && i < first; ++i) {
          const double want = reference.output[i], got = output[i];
          if (!(std::fabs(got - want) <= kErrorsAllowed * reference.error[i])) return i;
        }
        return first;
      },
      [](size_t a, size_t b) { return std::min(a, b); });
  if (first_wrong == size) return Status::Ok();
  return WrongOutputAt(reference, first_wrong, output[first_wrong]);
}

Status WrongOutputAt(const Reference& reference, size_t element, float got) {
  return Internal("the kernel computed a wrong result: element " + std::to_string(element) +
                  " is " + std::to_string(got) + ", expected " +
                  std::to_string(reference.output[element]) + " within " +
                  std::to_string(kErrorsAllowed * reference.error[element]));
}

}  // namespace compiler_gym::loop_tool_env
