// Tests of loop_tool-v0 from the IR up: schedule actions, the reference output and its error
// bounds, each backend against the reference (CUDA only where a GPU is present), and the env.
#include "envs/loop_tool/loop_tool_env.h"

#include <gtest/gtest.h>
#include <oneapi/tbb/task_arena.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <random>
#include <thread>

#include "envs/loop_tool/backend.h"
#include "envs/loop_tool/loop_ir.h"

namespace compiler_gym::loop_tool_env {
namespace {

std::vector<std::pair<int64_t, int64_t>> Order(const Schedule& s) {
  std::vector<std::pair<int64_t, int64_t>> order;
  for (const Loop& l : s.loops) order.emplace_back(l.size, l.tail);
  return order;
}

using Order3 = std::vector<std::pair<int64_t, int64_t>>;

// CompilerGym's worked example of resize (its docstring), step by step.
TEST(LoopIr, ResizeFollowsTheWorkedExample) {
  const Program p = MakeProgram("1024").value();
  Schedule s = InitialSchedule(p);
  EXPECT_EQ(Order(s), (Order3{{1024, 0}, {1, 0}, {1, 0}}));
  s.cursor = 1;
  EXPECT_TRUE(Resize(p, s, 1));
  EXPECT_EQ(Order(s), (Order3{{512, 0}, {2, 0}, {1, 0}}));
  EXPECT_TRUE(Resize(p, s, 1));
  EXPECT_EQ(Order(s), (Order3{{341, 1}, {3, 0}, {1, 0}}));
  EXPECT_TRUE(Resize(p, s, 1));
  EXPECT_EQ(Order(s), (Order3{{256, 0}, {4, 0}, {1, 0}}));
  s.cursor = 2;
  EXPECT_TRUE(Resize(p, s, 1));
  EXPECT_EQ(Order(s), (Order3{{256, 0}, {2, 0}, {2, 0}}));
  EXPECT_TRUE(Resize(p, s, 1));
  EXPECT_EQ(Order(s), (Order3{{256, 0}, {1, 1}, {3, 0}}));
  s.cursor = 1;
  EXPECT_TRUE(Resize(p, s, -1));
  EXPECT_EQ(Order(s), (Order3{{341, 1}, {1, 0}, {3, 0}}));
  s.cursor = 2;
  EXPECT_TRUE(Resize(p, s, -1));
  EXPECT_EQ(Order(s), (Order3{{341, 1}, {1, 1}, {2, 0}}));
  s.cursor = 1;
  EXPECT_TRUE(Resize(p, s, -1));
  EXPECT_EQ(Order(s), (Order3{{512, 0}, {1, 0}, {2, 0}}));
  // The outermost loop has no parent: nothing changes.
  s.cursor = 0;
  EXPECT_FALSE(Resize(p, s, 1));
  // A unit loop cannot shrink.
  s.cursor = 1;
  EXPECT_FALSE(Resize(p, s, -1));
}

TEST(LoopIr, CursorModeThreadAndSplit) {
  const Program p = MakeProgram("add/12").value();
  Schedule s = InitialSchedule(p);
  EXPECT_EQ(s.loops[0].thread, true);
  EXPECT_TRUE(ToggleMode(s));  // select
  EXPECT_TRUE(Down(p, s));     // wraps around
  EXPECT_EQ(s.cursor, 2);
  EXPECT_TRUE(Up(p, s));
  EXPECT_EQ(s.cursor, 0);
  EXPECT_TRUE(Up(p, s));
  EXPECT_TRUE(ToggleThread(s));
  EXPECT_TRUE(s.loops[1].thread);
  EXPECT_TRUE(Split(s));  // a unit loop inside loop 1
  ASSERT_EQ(s.loops.size(), 4u);
  EXPECT_EQ(s.loops[2], (Loop{0, 1, 0, false}));
  EXPECT_TRUE(ToggleMode(s));  // size
  EXPECT_TRUE(Up(p, s));       // loop 1 grows to 2 against loop 0
  EXPECT_EQ(Order(s), (Order3{{6, 0}, {2, 0}, {1, 0}, {1, 0}}));
  EXPECT_TRUE(CheckSchedule(p, s).ok());
  while (Split(s)) {
  }
  EXPECT_EQ(s.loops.size(), static_cast<size_t>(kMaxLoops));
}

// Any sequence of actions keeps every variable covered exactly (the sizes and tails fold to
// the extent), on every program.
TEST(LoopIr, RandomActionsKeepTheExtents) {
  std::mt19937 gen(7);
  for (const char* path : {"1000", "add/97", "matmul/12x10x7", "reduce/9x31", "softmax/5x13"}) {
    const Program p = MakeProgram(path).value();
    Schedule s = InitialSchedule(p);
    for (int i = 0; i < 3000; ++i) {
      switch (gen() % 5) {
        case 0:
          ToggleMode(s);
          break;
        case 1:
          Up(p, s);
          break;
        case 2:
          Down(p, s);
          break;
        case 3:
          ToggleThread(s);
          break;
        case 4:
          if (gen() % 8 == 0) Split(s);
          break;
      }
      ASSERT_TRUE(CheckSchedule(p, s).ok())
          << path << " after " << i << ": " << CheckSchedule(p, s).message() << "\n"
          << DumpLoopTree(p, s, true);
    }
  }
}

TEST(LoopIr, ProgramsAndErrors) {
  EXPECT_EQ(MakeProgram("matmul/4x5x6").value().Flops(), 2 * 4 * 5 * 6);
  EXPECT_EQ(MakeProgram("1024").value().Flops(), 1024);
  EXPECT_EQ(MakeProgram("1024").value().Bytes(), 3 * 1024 * 4);
  EXPECT_EQ(MakeProgram("softmax/3x4").value().Flops(), 5 * 3 * 4);
  EXPECT_EQ(MakeProgram("reduce/3x4").value().key, "reduce/3x4");
  EXPECT_EQ(MakeProgram("8").value().key, "add/8");
  for (const char* bad : {"0", "-5", "add/0", "abc", "conv/3", "matmul/2x2", "add/1x2",
                          "add/2000000000", "softmax/3x", "a/b/c", "",
                          // 2^37 and 2^90 points: refused, not overflowed
                          "matmul/4096x4096x8192", "matmul/1073741824x1x1073741824"}) {
    EXPECT_EQ(MakeProgram(bad).status().code(), StatusCode::kBenchmarkInit) << bad;
  }
  EXPECT_TRUE(MakeProgram("matmul/4096x4096x4096").ok());  // 2^36 points, the most
}

TEST(LoopIr, DumpLoopTree) {
  const Program p = MakeProgram("add/8").value();
  Schedule s = InitialSchedule(p);
  s.cursor = 1;
  Resize(p, s, 1);
  Resize(p, s, 1);
  // loop_tool's format, CompilerGym's expected text: labels count the nodes' lines too.
  EXPECT_EQ(DumpLoopTree(p, s, false),
            "for a in 2 r 2 : L0 [thread]\n"
            " for a' in 3 : L1\n"
            "  for a'' in 1 : L2\n"
            "   %0[a] <- read()\n"
            "  for a'' in 1 : L4\n"
            "   %1[a] <- read()\n"
            "  for a'' in 1 : L6\n"
            "   %2[a] <- add(%0, %1)\n"
            "  for a'' in 1 : L8\n"
            "   %3[a] <- write(%2)\n");
  s.loops[2].thread = true;
  const std::string cpu = DumpLoopTree(p, s, true);
  EXPECT_EQ(cpu.substr(0, cpu.find("%0")),
            "for a in 2 r 2 : L0 cpu_parallel [thread]\n"
            " for a' in 3 : L1\n"
            "  for a'' in 1 : L2 cpu_parallel [thread]\n   ");
  // Two variables: the innermost loop (of c) is the one each node gets a copy of.
  const Program r = MakeProgram("reduce/3x4").value();
  EXPECT_EQ(DumpLoopTree(r, InitialSchedule(r), true),
            "for r in 3 : L0 cpu_parallel [thread]\n"
            " for r' in 1 : L1\n"
            "  for r'' in 1 : L2\n"
            "   for c in 4 : L3\n"
            "    for c' in 1 : L4\n"
            "     for c'' in 1 : L5\n"
            "      %0[r, c] <- read()\n"
            "     for c'' in 1 : L7\n"
            "      %1[r] <- add(%0)\n"
            "     for c'' in 1 : L9\n"
            "      %2[r] <- write(%1)\n");
}

TEST(LoopIr, ReferenceOutput) {
  const Program p = MakeProgram("matmul/2x3x2").value();
  const std::vector<std::vector<float>> in = {{1, 2, 3, 4}, {1, 0, -1, 2, 1, 0}};
  // A = [[1,2],[3,4]], B = [[1,0,-1],[2,1,0]]
  const Reference ref = ReferenceOutput(p, in);
  EXPECT_EQ(ref.output, (std::vector<float>{5, 2, -1, 11, 4, -3}));
  // C[0][0] = 1*1 + 2*2: the products (1 and 4) and the partial sums (1 and 5) rounded, then
  // the float32 result and the reference rounded (2 roundings of 5): sqrt(1 + 16 + 1 + 25) u +
  // 10 u, with u = 2^-24.
  EXPECT_NEAR(ref.error[0], (std::sqrt(43.0) + 10) * 0x1p-24, 1e-12);
  const Program sm = MakeProgram("softmax/1x2").value();
  const std::vector<float> out = ReferenceOutput(sm, {{0.0f, std::log(3.0f)}}).output;
  EXPECT_NEAR(out[0], 0.25, 1e-6);
  EXPECT_NEAR(out[1], 0.75, 1e-6);
}

// A long reduction's allowed error follows its partial sums, not its length: a row of 65536
// terms in [-1, 1) is allowed about 0.01, so that dropping a term of 0.05 (or the first 42
// terms, as a wrong tail would) is caught; the old rule (2e-7 x length x the largest output)
// allowed 4.8 there. A row of positive terms (softmax's sum) is allowed more of its size: its
// partial sums grow with every term.
TEST(LoopIr, LongReductionsAreCheckedByTheirPartialSums) {
  std::shared_ptr<ProgramData> data = GetProgramData("reduce/4x65536").value();
  const Reference ref = ReferenceOutput(data->program, data->inputs);
  for (size_t row = 0; row < ref.output.size(); ++row) {
    EXPECT_LT(kErrorsAllowed * ref.error[row], 0.03) << row;
    EXPECT_GT(kErrorsAllowed * ref.error[row], 0.002) << row;
  }
  // The float32 sum in the serial order, as the initial schedule's kernel adds: well inside.
  const std::vector<float>& a = data->inputs[0];
  std::vector<float> serial(4, 0.0f), dropped(4), first42(4, 0.0f);
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 65536; ++c) {
      serial[r] += a[r * 65536 + c];
      if (c >= 42) first42[r] += a[r * 65536 + c];
    }
    int big = 0;  // a term of magnitude 0.05 or more, dropped
    while (std::fabs(a[r * 65536 + big]) < 0.05f) ++big;
    dropped[r] = serial[r] - a[r * 65536 + big];
  }
  EXPECT_TRUE(CheckOutput(ref, serial.data()).ok());
  for (const std::vector<float>* wrong : {&dropped, &first42}) {
    EXPECT_EQ(CheckOutput(ref, wrong->data()).code(), StatusCode::kInternal);
  }
  // softmax over 2^20: all zero, or half of the right values, is wrong (the old rule allowed
  // zero at 21.9% of the elements and half at 56.6%).
  std::shared_ptr<ProgramData> soft = GetProgramData("softmax/1x1048576").value();
  const Reference sm = ReferenceOutput(soft->program, soft->inputs);
  std::vector<float> half = sm.output, zero(sm.output.size(), 0.0f);
  for (float& v : half) v *= 0.5f;
  EXPECT_TRUE(CheckOutput(sm, sm.output.data()).ok());
  EXPECT_EQ(CheckOutput(sm, half.data()).code(), StatusCode::kInternal);
  EXPECT_EQ(CheckOutput(sm, zero.data()).code(), StatusCode::kInternal);
  EXPECT_NE(CheckOutput(sm, zero.data()).message().find("element 0 is"), std::string::npos);
}

// "add/016" is "add/16": the same key, so the same data and the same cached kernels.
TEST(LoopIr, ProgramKeysAreCanonical) {
  EXPECT_EQ(MakeProgram("add/016").value().key, "add/16");
  EXPECT_EQ(MakeProgram("16").value().key, "add/16");
  EXPECT_EQ(MakeProgram("matmul/02x3x04").value().key, "matmul/2x3x4");
}

// The reference runs in parallel over an output variable; every reduction still sums in one
// order, so the output is the same to the bit on one thread and on several.
TEST(LoopIr, ReferenceOutputIsTheSameOnAnyThreadCount) {
  for (const char* path : {"matmul/37x29x41", "reduce/33x95", "softmax/19x70"}) {
    std::shared_ptr<ProgramData> data = GetProgramData(path).value();
    auto on = [&](int threads) {
      Reference out;
      oneapi::tbb::task_arena(threads).execute(
          [&] { out = ReferenceOutput(data->program, data->inputs); });
      return out;
    };
    const Reference one = on(1);
    for (int threads : {4, 7}) {
      const Reference more = on(threads);
      EXPECT_EQ(one.output, more.output) << path;
      EXPECT_EQ(one.error, more.error) << path;
    }
  }
}

// Each backend computes every program right under schedules reached by random actions (tails,
// splits, threaded loops over reduced variables, which accumulate atomically). The CUDA case
// runs where a GPU is present (scripts/gpu_check.sh) and is skipped elsewhere.
class Backend : public ::testing::TestWithParam<Device> {
 protected:
  void SetUp() override {
    const Status available = DeviceAvailable(GetParam());
    if (!available.ok()) GTEST_SKIP() << available.message();
  }
};

TEST_P(Backend, MatchesTheReferenceUnderRandomSchedules) {
  std::mt19937 gen(3);
  for (const char* path : {"add/1000", "matmul/17x9x13", "reduce/7x45", "softmax/6x33"}) {
    std::shared_ptr<ProgramData> data = GetProgramData(path).value();
    const Reference reference = ReferenceOutput(data->program, data->inputs);
    Schedule s = InitialSchedule(data->program);
    for (int trial = 0; trial < 12; ++trial) {
      for (int i = 0; i < 15; ++i) {
        switch (gen() % 6) {
          case 0:
            ToggleMode(s);
            break;
          case 1:
          case 5:
            Up(data->program, s);
            break;
          case 2:
            Down(data->program, s);
            break;
          case 3:
            ToggleThread(s);
            break;
          case 4:
            Split(s);
            break;
        }
      }
      StatusOr<std::shared_ptr<Kernel>> kernel = GetKernel(GetParam(), data->program, s.loops);
      ASSERT_TRUE(kernel.ok()) << path << ": " << kernel.status().ToString() << "\n"
                               << DumpLoopTree(data->program, s, GetParam() == Device::kCpu);
      std::vector<float> output;
      const Status run = (*kernel)->RunOnce(*data, output);
      ASSERT_TRUE(run.ok()) << path << ": " << run.ToString();
      const Status check = CheckOutput(reference, output.data());
      EXPECT_TRUE(check.ok()) << path << ": " << check.message() << "\n"
                              << DumpLoopTree(data->program, s, GetParam() == Device::kCpu);
    }
  }
}

// A measurement checks the kernel once, then times it; the copy peak is a positive bandwidth.
TEST_P(Backend, MeasuresCheckedKernelsAndTheCopyPeak) {
  std::shared_ptr<ProgramData> data = GetProgramData("add/65536").value();
  const Schedule s = InitialSchedule(data->program);
  std::shared_ptr<Kernel> kernel = GetKernel(GetParam(), data->program, s.loops).value();
  const TimingOptions options{.warmup = 1, .repetitions = 3};
  StatusOr<double> seconds = Measure(GetParam(), *kernel, *data, options);
  ASSERT_TRUE(seconds.ok()) << seconds.status().ToString();
  EXPECT_GT(*seconds, 0);
  EXPECT_TRUE(kernel->checked);
  EXPECT_TRUE(kernel->check.ok()) << kernel->check.ToString();
  StatusOr<double> peak = CopyBandwidth(GetParam(), 1 << 20, options);
  ASSERT_TRUE(peak.ok()) << peak.status().ToString();
  EXPECT_GT(*peak, 0);
}

// A cache hit is the kernel that a fresh compile of its tree makes: the same code, byte for
// byte (its hash), and the same output, bit for bit; another tree's code differs.
TEST_P(Backend, ACacheHitIsTheKernelAFreshCompileMakes) {
  const Device device = GetParam();
  for (const char* path : {"add/4099", "matmul/19x9x13", "softmax/7x33"}) {
    std::shared_ptr<ProgramData> data = GetProgramData(path).value();
    const Reference reference = ReferenceOutput(data->program, data->inputs);
    Schedule s = InitialSchedule(data->program);
    s.cursor = 1;
    ASSERT_TRUE(Resize(data->program, s, 3)) << path;  // programs no other test compiles
    const CacheStats before = GetCacheStats();
    std::shared_ptr<Kernel> cached = GetKernel(device, data->program, s.loops).value();
    std::shared_ptr<Kernel> hit = GetKernel(device, data->program, s.loops).value();
    const CacheStats after = GetCacheStats();
    EXPECT_EQ(after.compiles - before.compiles, 1) << path;
    EXPECT_EQ(after.hits - before.hits, 1) << path;
    EXPECT_EQ(hit.get(), cached.get()) << path;
    StatusOr<std::shared_ptr<Kernel>> fresh = device == Device::kCpu
                                                  ? CompileCpu(data->program, s.loops)
                                                  : CompileCuda(data->program, s.loops);
    ASSERT_TRUE(fresh.ok()) << path << ": " << fresh.status().ToString();
    EXPECT_NE(fresh->get(), hit.get()) << path;
    EXPECT_NE(hit->code_hash, 0u) << path;
    EXPECT_EQ((*fresh)->code_hash, hit->code_hash) << path;
    std::vector<float> from_hit, from_fresh;
    ASSERT_TRUE(hit->RunOnce(*data, from_hit).ok()) << path;
    ASSERT_TRUE((*fresh)->RunOnce(*data, from_fresh).ok()) << path;
    ASSERT_EQ(from_hit.size(), reference.output.size()) << path;
    ASSERT_EQ(from_fresh.size(), from_hit.size()) << path;
    EXPECT_EQ(std::memcmp(from_fresh.data(), from_hit.data(), from_hit.size() * sizeof(float)), 0)
        << path;
    EXPECT_TRUE(CheckOutput(reference, from_hit.data()).ok()) << path;
    // Both pass the first run's check, which the CPU makes in the output buffer itself.
    std::vector<float> scratch;
    EXPECT_TRUE(hit->RunChecked(*data, reference, scratch).ok()) << path;
    EXPECT_TRUE((*fresh)->RunChecked(*data, reference, scratch).ok()) << path;
    const Schedule initial = InitialSchedule(data->program);
    EXPECT_NE(GetKernel(device, data->program, initial.loops).value()->code_hash, hit->code_hash)
        << path;
  }
}

// The first run's check, made where the output lies (in place on the CPU, on the GPU by a
// kernel of its own), passes a right output and names the first wrong element as the host's
// CheckOutput does. The wrong reference goes to a program data of its own: a device keeps the
// reference it was first given.
TEST_P(Backend, TheFirstRunsCheckNamesTheFirstWrongElement) {
  if (GetParam() == Device::kCuda) {
    const Status loaded = CudaOutputCheckLoaded();
    EXPECT_TRUE(loaded.ok()) << loaded.ToString();  // else the host checks, and this proves less
  }
  const Program program = MakeProgram("add/300001").value();
  const Schedule s = InitialSchedule(program);
  std::shared_ptr<Kernel> kernel = GetKernel(GetParam(), program, s.loops).value();
  ProgramData right, wrong;
  for (ProgramData* data : {&right, &wrong}) {
    data->program = program;
    data->inputs = MakeInputs(program);
  }
  const Reference reference = ReferenceOutput(program, right.inputs);
  std::vector<float> scratch;
  const StatusOr<double> passed = kernel->RunChecked(right, reference, scratch);
  ASSERT_TRUE(passed.ok()) << passed.status().ToString();
  EXPECT_GT(*passed, 0);
  Reference shifted = reference;
  shifted.output[250000] += 1;  // in a later part of the output than
  shifted.output[70000] += 1;   // this one, the first
  std::vector<float> output;
  ASSERT_TRUE(kernel->RunOnce(wrong, output).ok());
  const Status expected = CheckOutput(shifted, output.data());
  EXPECT_EQ(expected.code(), StatusCode::kInternal);
  EXPECT_NE(expected.message().find("element 70000 is"), std::string::npos) << expected.message();
  const StatusOr<double> failed = kernel->RunChecked(wrong, shifted, scratch);
  EXPECT_EQ(failed.status().code(), StatusCode::kInternal);
  EXPECT_EQ(failed.status().message(), expected.message());
}

// The CUDA toolkit's ptxas, where this machine has one ("" where not).
std::string FindPtxas() {
  std::string dirs = std::getenv("PATH") ? std::getenv("PATH") : "";
  dirs += ":/usr/local/cuda/bin";
  for (size_t start = 0; start <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string path = dirs.substr(start, end - start) + "/ptxas";
    if (end > start && ::access(path.c_str(), X_OK) == 0) return path;
    start = end + 1;
  }
  return "";
}

// With ptxas, a kernel assembled before its load is the driver-JIT kernel's twin: the same
// code hash (of the PTX) and the same output, bit for bit.
TEST_P(Backend, KernelsAssembledByPtxasMatchTheDriversJit) {
  if (GetParam() != Device::kCuda) GTEST_SKIP() << "CUDA only";
  const std::string ptxas = FindPtxas();
  if (ptxas.empty()) GTEST_SKIP() << "no ptxas";
  std::shared_ptr<ProgramData> data = GetProgramData("matmul/19x9x13").value();
  Schedule s = InitialSchedule(data->program);
  ToggleThread(s);
  std::shared_ptr<Kernel> jit = CompileCuda(data->program, s.loops).value();
  std::shared_ptr<Kernel> assembled = CompileCuda(data->program, s.loops, ptxas).value();
  EXPECT_EQ(jit->code_hash, assembled->code_hash);
  std::vector<float> a, b;
  ASSERT_TRUE(jit->RunOnce(*data, a).ok());
  ASSERT_TRUE(assembled->RunOnce(*data, b).ok());
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
}

INSTANTIATE_TEST_SUITE_P(Devices, Backend, ::testing::Values(Device::kCpu, Device::kCuda),
                         [](const auto& info) { return std::string(DeviceName(info.param)); });

TEST(CpuBackend, WrongOutputIsCaught) {
  std::shared_ptr<ProgramData> data = GetProgramData("reduce/4x8").value();
  const Reference reference = ReferenceOutput(data->program, data->inputs);
  std::vector<float> wrong = reference.output;
  wrong[2] += 0.5f;  // as if one term were counted twice
  EXPECT_EQ(CheckOutput(reference, wrong.data()).code(), StatusCode::kInternal);
  wrong = reference.output;
  wrong[3] = std::nanf("");  // an element no kernel wrote: RunOnce poisons the output first
  EXPECT_EQ(CheckOutput(reference, wrong.data()).code(), StatusCode::kInternal);
  EXPECT_TRUE(CheckOutput(reference, reference.output.data()).ok());
}

TEST(CpuBackend, TheFirstWrongElementIsReportedOnAnyThreadCount) {
  std::shared_ptr<ProgramData> data = GetProgramData("add/300000").value();
  const Reference reference = ReferenceOutput(data->program, data->inputs);
  std::vector<float> wrong = reference.output;
  wrong[250000] += 1;  // in a later chunk of the parallel check than
  wrong[70000] += 1;   // this one, the first
  for (int threads : {1, 4}) {
    oneapi::tbb::task_arena arena(threads);
    const Status s = arena.execute([&] { return CheckOutput(reference, wrong.data()); });
    EXPECT_EQ(s.code(), StatusCode::kInternal);
    EXPECT_NE(s.message().find("element 70000 is"), std::string::npos) << s.message();
  }
}

TEST(TimingOptions, RunsBeyondTheBudgetAreDropped) {
  auto runs = [](double run_seconds) {
    const TimingOptions o = WithinBudget(TimingOptions{}, run_seconds);  // 3 + 20 runs, 1 s
    return std::pair(o.warmup, o.repetitions);
  };
  EXPECT_EQ(runs(0), std::pair(3, 20));     // never run: as asked
  EXPECT_EQ(runs(0.01), std::pair(3, 20));  // 23 runs fit
  EXPECT_EQ(runs(0.1), std::pair(2, 8));    // 10 fit: a quarter warm up
  EXPECT_EQ(runs(0.4), std::pair(0, 2));
  EXPECT_EQ(runs(30), std::pair(0, 1));  // one timed run however slow
  EXPECT_EQ(WithinBudget(TimingOptions{1, 5, 10}, 1).repetitions, 5);
}

// The budget bounds the runs made, not only the ones timed: a kernel whose checked run used up
// the budget is timed once, with no warm-up and no calibration run (it made 4 runs before).
TEST(CpuBackend, AKernelPastItsBudgetRunsOnceMore) {
  std::shared_ptr<ProgramData> data = GetProgramData("add/1048576").value();
  Schedule s = InitialSchedule(data->program);
  s.loops[0].thread = false;  // a tree no other test measures: a kernel never run
  std::shared_ptr<Kernel> kernel = GetKernel(Device::kCpu, data->program, s.loops).value();
  ASSERT_EQ(kernel->runs, 0);
  const TimingOptions options{.warmup = 3, .repetitions = 20, .budget_seconds = 1e-9};
  ASSERT_TRUE(Measure(Device::kCpu, *kernel, *data, options).ok());
  EXPECT_EQ(kernel->runs, 2);  // the checked run, one timed run
  ASSERT_TRUE(Measure(Device::kCpu, *kernel, *data, options).ok());
  EXPECT_EQ(kernel->runs, 3);
}

// Envs that reach the same loop tree at once share one compile and one check.
TEST(CpuBackend, ConcurrentMissesOfOneTreeCompileOnce) {
  std::shared_ptr<ProgramData> data = GetProgramData("add/5000").value();
  Schedule s = InitialSchedule(data->program);
  s.cursor = 1;
  ASSERT_TRUE(Resize(data->program, s, 7));  // a tree no other test compiles
  const CacheStats before = GetCacheStats();
  std::vector<std::shared_ptr<Kernel>> kernels(8);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {  // threads of their own, so that they ask at the same time
    threads.emplace_back([&, i] {
      kernels[i] = GetKernel(Device::kCpu, data->program, s.loops).value();
      EXPECT_TRUE(Measure(Device::kCpu, *kernels[i], *data, TimingOptions{0, 1}).ok());
    });
  }
  for (std::thread& t : threads) t.join();
  const CacheStats after = GetCacheStats();
  EXPECT_EQ(after.compiles - before.compiles, 1);
  EXPECT_EQ(after.hits - before.hits, 7);
  EXPECT_EQ(after.checks - before.checks, 1);
  for (const auto& k : kernels) EXPECT_EQ(k.get(), kernels[0].get());
}

// No GPU needed: ptxas makes a CUDA binary (ELF) of a kernel's PTX, and its failures are
// errors that say so.
TEST(CudaBackend, AssemblePtxMakesACubinOrSaysWhyNot) {
  const std::string ptxas = FindPtxas();
  if (ptxas.empty()) GTEST_SKIP() << "no ptxas";
  std::shared_ptr<ProgramData> data = GetProgramData("add/65536").value();
  const Schedule s = InitialSchedule(data->program);
  const std::string ptx = EmitPtx(data->program, s.loops, "sm_90").value();
  StatusOr<std::string> cubin = AssemblePtx(ptx, "sm_90", ptxas);
  ASSERT_TRUE(cubin.ok()) << cubin.status().ToString();
  EXPECT_EQ(cubin->substr(0, 4),
            "\x7f"
            "ELF");
  EXPECT_EQ(AssemblePtx(ptx, "sm_90", "/nonexistent/ptxas").status().code(), StatusCode::kNotFound);
  const Status broken = AssemblePtx(ptx + "\nnot ptx;\n", "sm_90", ptxas).status();
  EXPECT_EQ(broken.code(), StatusCode::kInternal);
  EXPECT_NE(broken.message().find("ptxas exit code"), std::string::npos) << broken.message();
}

TEST(LoopToolEnv, TimingBudgetAndPtxasParameters) {
  LoopToolEnv env;
  EXPECT_EQ(env.GetParameter("timing_budget_seconds").value(), "1");
  ASSERT_TRUE(env.SetParameter("timing_budget_seconds", "0.02").ok());
  EXPECT_EQ(env.GetParameter("timing_budget_seconds").value(), "0.02");
  for (const char* bad : {"0", "-1", "x", "", "1s", "inf", "nan"}) {
    EXPECT_EQ(env.SetParameter("timing_budget_seconds", bad).code(), StatusCode::kInvalidArgument)
        << bad;
  }
  EXPECT_EQ(env.GetParameter("timing_budget_seconds").value(), "0.02");
  EXPECT_EQ(env.GetParameter("cuda_ptxas").value(), "");
  ASSERT_TRUE(env.SetParameter("cuda_ptxas", "/opt/cuda/bin/ptxas").ok());
  EXPECT_EQ(env.GetParameter("cuda_ptxas").value(), "/opt/cuda/bin/ptxas");
}

TEST(LoopToolEnv, NewTimingOptionsMeasureAfresh) {
  LoopToolEnv env;
  ASSERT_TRUE(env.SetParameter("timing_repetitions", "2").ok());
  ASSERT_TRUE(env.Reset(Benchmark{.uri = "benchmark://loop_tool-cpu-v0/4096"}).ok());
  const int runtime = env.Spec().ObservationIndex("runtime");
  ASSERT_TRUE(env.Observe(runtime).ok());
  const int64_t looked_up = GetCacheStats().hits + GetCacheStats().compiles;
  ASSERT_TRUE(env.Observe(runtime).ok());  // the same loop tree: the measurement is kept
  EXPECT_EQ(GetCacheStats().hits + GetCacheStats().compiles, looked_up);
  ASSERT_TRUE(env.SetParameter("timing_repetitions", "3").ok());
  ASSERT_TRUE(env.Observe(runtime).ok());  // measured again, with the cached kernel
  EXPECT_EQ(GetCacheStats().hits + GetCacheStats().compiles, looked_up + 1);
  ASSERT_TRUE(env.SetParameter("warmup_runs", "1").ok());
  ASSERT_TRUE(env.Observe(runtime).ok());
  EXPECT_EQ(GetCacheStats().hits + GetCacheStats().compiles, looked_up + 2);
}

TEST(LoopToolEnv, StepsObservesAndForks) {
  LoopToolEnv env;
  ASSERT_TRUE(env.SetParameter("timing_repetitions", "3").ok());
  EXPECT_EQ(env.SetParameter("timing_repetitions", "0").code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(env.Reset(Benchmark{.uri = "benchmark://loop_tool-cpu-v0/1024"}).ok());
  const int state = env.Spec().ObservationIndex("action_state");
  EXPECT_EQ(std::get<std::vector<int64_t>>(env.Observe(state).value()),
            (std::vector<int64_t>{0, 1024, 0}));
  // select mode, cursor to loop 1, size mode, up: [512, 2, 1].
  StepOutcome out = env.Step(std::vector<int>{0, 1, 0, 1}).value();
  EXPECT_FALSE(out.action_had_no_effect);
  EXPECT_EQ(std::get<std::vector<int64_t>>(env.Observe(state).value()),
            (std::vector<int64_t>{1, 2, 0}));
  EXPECT_TRUE(env.Step(std::vector<int>{4}).status().code() == StatusCode::kOutOfRange);
  const double flops = std::get<double>(env.Observe(env.Spec().ObservationIndex("flops")).value());
  EXPECT_GT(flops, 0);
  // The first reward is the GFLOP/s itself, measured once per loop tree.
  EXPECT_DOUBLE_EQ(env.Reward(0).value(), flops);
  EXPECT_DOUBLE_EQ(env.Reward(0).value(), 0.0);
  std::unique_ptr<Env> fork = env.Fork().value();
  ASSERT_TRUE(fork->Step(std::vector<int>{2}).ok());  // down: back to [1024, 1, 1]
  EXPECT_EQ(std::get<std::vector<int64_t>>(fork->Observe(state).value()),
            (std::vector<int64_t>{1, 1, 0}));
  EXPECT_EQ(std::get<std::vector<int64_t>>(env.Observe(state).value()),
            (std::vector<int64_t>{1, 2, 0}));
  // Down at size 1 changes nothing.
  EXPECT_TRUE(fork->Step(std::vector<int>{2}).value().action_had_no_effect);
}

TEST(LoopToolEnv, BadBenchmarksAndNoGpu) {
  LoopToolEnv env;
  EXPECT_EQ(env.Reset(Benchmark{.uri = "benchmark://loop_tool-cpu-v0/0"}).code(),
            StatusCode::kBenchmarkInit);
  EXPECT_EQ(env.Reset(Benchmark{.uri = "benchmark://loop_tool-cpu-v0/nope/3"}).code(),
            StatusCode::kBenchmarkInit);
  EXPECT_EQ(env.Reset(Benchmark{.uri = "benchmark://other-v0/3"}).code(),
            StatusCode::kBenchmarkInit);
  const Status cuda = env.Reset(Benchmark{.uri = "benchmark://loop_tool-cuda-v0/1024"});
  if (!CudaAvailable().ok()) {
    EXPECT_EQ(cuda.code(), StatusCode::kUnavailable);
  } else {
    EXPECT_TRUE(cuda.ok()) << cuda.message();
  }
}

}  // namespace
}  // namespace compiler_gym::loop_tool_env
