// Tests of LlvmEnv in process on the IR fixtures in tests/data: steps, resets, baselines, forks,
// TryActions, contained crashes, change detection, the benchmark cache and the registry.
#include "envs/llvm/llvm_env.h"

#include <gtest/gtest.h>
#include <oneapi/tbb/task_arena.h>

#include <fstream>

#include "envs/llvm/benchmark_cache.h"
#include "envs/llvm/codegen.h"
#include "envs/llvm/module_util.h"
#include "envs/llvm/passes.h"
#include "llvm/Support/FileSystem.h"

namespace compiler_gym::llvm_env {
namespace {

std::string Fixture(const std::string& name) {
  return std::string(CG_SOURCE_DIR) + "/tests/data/" + name;
}

Benchmark FileBenchmark(const std::string& path) {
  return Benchmark{.uri = "file://" + path, .files = {path}};
}

int PassIndex(const std::string& flag) {
  const auto& table = PassTable();
  for (size_t i = 0; i < table.size(); ++i) {
    if (table[i].flag == flag) return static_cast<int>(i);
  }
  ADD_FAILURE() << "no pass " << flag;
  return -1;
}

int Obs(const std::string& name) { return LlvmEnvSpec().ObservationIndex(name); }

int64_t ObserveInt(Env& env, const std::string& name) {
  auto v = env.Observe(Obs(name));
  EXPECT_TRUE(v.ok()) << v.status().ToString();
  return v.ok() ? std::get<int64_t>(*v) : -1;
}

std::string ObserveText(Env& env, const std::string& name) {
  auto v = env.Observe(Obs(name));
  EXPECT_TRUE(v.ok()) << v.status().ToString();
  return v.ok() ? std::get<Text>(*v).data : "";
}

TEST(LlvmEnv, ObservesFixture) {
  LlvmEnv env;
  ASSERT_TRUE(env.Reset(FileBenchmark(Fixture("instcount.ll"))).ok());
  EXPECT_EQ(ObserveInt(env, "IrInstructionCount"), 15);
  auto counts = env.Observe(Obs("InstCount"));
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(std::get<std::vector<int64_t>>(*counts)[0], 15);
  EXPECT_EQ(ObserveText(env, "IrSha1").size(), 40u);
  // Normalization on load: no ModuleID or source file name survives.
  const std::string ir = ObserveText(env, "Ir");
  EXPECT_NE(ir.find("; ModuleID = '-'"), std::string::npos) << ir.substr(0, 200);
  EXPECT_NE(ir.find("source_filename = \"-\""), std::string::npos);
}

// @store in the fixture is alloca + store 1 + load + store: mem2reg promotes the alloca away,
// removing alloca, its store, and its load.
TEST(LlvmEnv, StepRunsThePassAndReportsEffect) {
  LlvmEnv env;
  ASSERT_TRUE(env.Reset(FileBenchmark(Fixture("instcount.ll"))).ok());
  const std::string before = ObserveText(env, "IrSha1");
  const int mem2reg[] = {PassIndex("-mem2reg")};
  auto out = env.Step(mem2reg);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->action_had_no_effect);
  EXPECT_FALSE(out->done);
  EXPECT_EQ(ObserveInt(env, "IrInstructionCount"), 12);
  EXPECT_NE(ObserveText(env, "IrSha1"), before);
  // Nothing left to promote.
  out = env.Step(mem2reg);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->action_had_no_effect);
  EXPECT_EQ(ObserveInt(env, "IrInstructionCount"), 12);
}

TEST(LlvmEnv, ResetRestoresTheProgram) {
  LlvmEnv env;
  const Benchmark b = FileBenchmark(Fixture("instcount.ll"));
  ASSERT_TRUE(env.Reset(b).ok());
  const std::string initial = ObserveText(env, "IrSha1");
  const int mem2reg[] = {PassIndex("-mem2reg")};
  ASSERT_TRUE(env.Step(mem2reg).ok());
  ASSERT_TRUE(env.Reset(b).ok());
  EXPECT_EQ(ObserveText(env, "IrSha1"), initial);
  EXPECT_EQ(ObserveInt(env, "IrInstructionCount"), 15);
}

TEST(LlvmEnv, BaselinesMatchAFreshPipelineRun) {
  const Benchmark b = FileBenchmark(Fixture("instcount.ll"));
  LlvmEnv env;
  ASSERT_TRUE(env.Reset(b).ok());
  auto cached = GetCachedBenchmark(b);
  ASSERT_TRUE(cached.ok());
  for (const auto& [level, pipeline] : std::vector<std::pair<std::string, std::string>>{
           {"O0", "default<O0>"}, {"O3", "default<O3>"}, {"Oz", "default<Oz>"}}) {
    llvm::LLVMContext context;
    auto module = ParseModule((*cached)->bitcode(), "x", context);
    ASSERT_TRUE(module.ok());
    auto tm = CreateTargetMachine(**module);
    ASSERT_TRUE(tm.ok());
    ASSERT_TRUE(RunPipeline(**module, tm->get(), pipeline).ok());
    EXPECT_EQ(ObserveInt(env, "IrInstructionCount" + level), IrInstructionCount(**module)) << level;
  }
}

// Struct types live in the LLVMContext that the env's pristine copy shares with the working
// module; -strip-nondebug renames them. A reset must still give back the original program.
TEST(LlvmEnv, ResetAfterContextMutatingPass) {
  LlvmEnv env;
  const Benchmark b{.uri = "benchmark://test/struct",
                    .data =
                        "%struct.S = type { i32, i64 }\n"
                        "define ptr @f(ptr %p) {\n"
                        "  %x = getelementptr %struct.S, ptr %p, i64 0, i32 1\n"
                        "  ret ptr %x\n"
                        "}\n"};
  ASSERT_TRUE(env.Reset(b).ok());
  const std::string initial = ObserveText(env, "Ir");
  ASSERT_NE(initial.find("%struct.S = type"), std::string::npos);
  const int strip[] = {PassIndex("-strip-nondebug")};
  ASSERT_TRUE(env.Step(strip).ok());
  EXPECT_EQ(ObserveText(env, "Ir").find("%struct.S = type"), std::string::npos);
  ASSERT_TRUE(env.Reset(b).ok());
  EXPECT_EQ(ObserveText(env, "Ir"), initial);
}

TEST(LlvmEnv, IrSha1IsDeterministicAcrossEnvs) {
  const Benchmark b = FileBenchmark(Fixture("autophase.ll"));
  std::vector<int> actions;
  for (const char* flag : {"-mem2reg", "-instcombine", "-simplifycfg", "-gvn", "-licm", "-adce"}) {
    actions.push_back(PassIndex(flag));
  }
  std::string hashes[2];
  for (std::string& hash : hashes) {
    LlvmEnv env;
    ASSERT_TRUE(env.Reset(b).ok());
    ASSERT_TRUE(env.Step(actions).ok());
    hash = ObserveText(env, "IrSha1");
  }
  EXPECT_EQ(hashes[0], hashes[1]);
}

TEST(LlvmEnv, ForkStepsLikeTheOriginal) {
  LlvmEnv env;
  ASSERT_TRUE(env.Reset(FileBenchmark(Fixture("autophase.ll"))).ok());
  const int simplify[] = {PassIndex("-simplifycfg")};
  auto fork = env.Fork();
  ASSERT_TRUE(fork.ok());
  ASSERT_TRUE(env.Step(simplify).ok());
  ASSERT_TRUE((*fork)->Step(simplify).ok());
  EXPECT_EQ(ObserveText(env, "IrSha1"), ObserveText(**fork, "IrSha1"));
}

// TryActions (a snapshot per thread, restored between candidates) gives for every action what a
// fork stepped by it gives, on 1 and 2 threads, and leaves the env as it was.
TEST(LlvmEnv, TryActionsEqualsForkAndStep) {
  LlvmEnv env;
  ASSERT_TRUE(env.Reset(FileBenchmark(Fixture("autophase.ll"))).ok());
  const int reward = env.Spec().RewardIndex("IrInstructionCount");
  const int sha = env.Spec().ObservationIndex("IrSha1");
  const int warmup[] = {PassIndex("-mem2reg")};
  ASSERT_TRUE(env.Step(warmup).ok());
  ASSERT_TRUE(env.Reward(reward).ok());
  const std::string before = ObserveText(env, "IrSha1");
  std::vector<std::vector<int>> candidates;
  for (int a = 0; a < static_cast<int>(PassTable().size()); ++a) candidates.push_back({a});
  candidates.push_back({PassIndex("-sroa"), PassIndex("-instcombine"), PassIndex("-gvn")});
  for (int threads : {1, 2}) {
    tbb::task_arena arena(threads);
    auto tried = arena.execute([&] { return env.TryActions(candidates, reward, sha); });
    ASSERT_TRUE(tried.ok()) << tried.status().message();
    ASSERT_EQ(tried->size(), candidates.size());
    for (size_t i = 0; i < candidates.size(); ++i) {
      auto fork = env.Fork();
      ASSERT_TRUE(fork.ok());
      auto step = (*fork)->Step(candidates[i]);
      ASSERT_TRUE(step.ok());
      const TryOutcome& got = (*tried)[i];
      const std::string what =
          PassTable()[candidates[i][0]].flag + " on " + std::to_string(threads) + " threads";
      if (step->done) {
        EXPECT_EQ(got.error.code(), step->error.code()) << what;
        continue;
      }
      ASSERT_TRUE(got.error.ok()) << what << ": " << got.error.message();
      EXPECT_EQ(got.reward, (*fork)->Reward(reward).value()) << what;
      EXPECT_EQ(std::get<Text>(got.observation).data, ObserveText(**fork, "IrSha1")) << what;
    }
  }
  EXPECT_EQ(ObserveText(env, "IrSha1"), before);
  EXPECT_EQ(env.actions(), std::vector<int>{warmup[0]});
  const std::vector<std::vector<int>> bad = {{0}, {-1}};
  EXPECT_EQ(env.TryActions(bad, reward).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(env.TryActions(candidates, 999).status().code(), StatusCode::kInvalidArgument);
}

TEST(LlvmEnv, BadBenchmarksAreTypedErrors) {
  LlvmEnv env;
  EXPECT_EQ(env.Reset(FileBenchmark("/nonexistent/file.bc")).code(), StatusCode::kNotFound);
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("corrupt", "bc", path));
  {
    std::ofstream f(std::string(path.str()), std::ios::binary);
    f << "BC\xC0\xDE" << std::string(64, '\x7f');
  }
  EXPECT_EQ(env.Reset(FileBenchmark(std::string(path.str()))).code(), StatusCode::kBenchmarkInit);
  llvm::sys::fs::remove(path);
  Benchmark text{.uri = "benchmark://test/broken", .data = "define i32 @f() { ret }"};
  EXPECT_EQ(env.Reset(text).code(), StatusCode::kBenchmarkInit);
  // The env is still usable.
  ASSERT_TRUE(env.Reset(FileBenchmark(Fixture("instcount.ll"))).ok());
  EXPECT_EQ(ObserveInt(env, "IrInstructionCount"), 15);
}

// A pass that dies (LLVM fatal error, or a segfault) ends that episode with an error; the process
// and other envs go on, and the same env resets and works again.
TEST(LlvmEnv, CrashingPassIsContained) {
  const Benchmark b = FileBenchmark(Fixture("instcount.ll"));
  LlvmEnv bystander;
  ASSERT_TRUE(bystander.Reset(b).ok());
  for (const char* pipeline : {"compiler-gym-test-fatal-error", "compiler-gym-test-segfault"}) {
    LlvmEnv env;
    ASSERT_TRUE(env.Reset(b).ok());
    auto out = env.StepPipelineForTesting(pipeline);
    ASSERT_TRUE(out.ok());
    EXPECT_TRUE(out->done) << pipeline;
    EXPECT_NE(out->error.message().find("crashed"), std::string::npos) << out->error.message();
    EXPECT_EQ(env.Observe(Obs("IrInstructionCount")).status().code(), StatusCode::kNoEpisode);
    ASSERT_TRUE(env.Reset(b).ok());
    EXPECT_EQ(ObserveInt(env, "IrInstructionCount"), 15);
    const int mem2reg[] = {PassIndex("-mem2reg")};
    ASSERT_TRUE(env.Step(mem2reg).ok());
    EXPECT_EQ(ObserveInt(env, "IrInstructionCount"), 12);
  }
  EXPECT_EQ(ObserveInt(bystander, "IrInstructionCount"), 15);
}

// Changes are read off the module, not off what the pass reports: a pass that changes the IR
// and claims it preserved everything still has an effect, and no cached observation survives it.
TEST(LlvmEnv, ChangeReportedAsNoneStillInvalidates) {
  LlvmEnv env;
  ASSERT_TRUE(env.Reset(FileBenchmark(Fixture("inst2vec.ll"))).ok());
  const std::string sha = ObserveText(env, "IrSha1");
  const std::string ir = ObserveText(env, "Ir");
  ASSERT_NE(ir.find("add nsw"), std::string::npos);
  auto out = env.StepPipelineForTesting("compiler-gym-test-silent-change");
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->done);
  EXPECT_FALSE(out->action_had_no_effect);
  EXPECT_NE(ObserveText(env, "IrSha1"), sha);
  EXPECT_EQ(ObserveText(env, "Ir").find("add nsw"), std::string::npos);
  // Nothing left to drop: the same pass is now a no-op, and says so.
  out = env.StepPipelineForTesting("compiler-gym-test-silent-change");
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->action_had_no_effect);
}

// The cache of loaded benchmarks is bounded in bytes and drops the least recently used first,
// so an endless generator dataset does not grow memory.
TEST(BenchmarkCache, BoundedLeastRecentlyUsed) {
  ClearBenchmarkCache();
  auto benchmark = [](int i) {
    return Benchmark{.uri = "benchmark://cache-test/" + std::to_string(i),
                     .data = "define i32 @f" + std::to_string(i) +
                             "(i32 %a) {\n  %b = add i32 %a, 1\n  ret i32 %b\n}\n"};
  };
  auto get = [&](int i) {
    auto cached = GetCachedBenchmark(benchmark(i));
    EXPECT_TRUE(cached.ok());
    return *cached;
  };
  std::vector<std::shared_ptr<CachedBenchmark>> loaded;
  for (int i = 0; i < 10; ++i) loaded.push_back(get(i));
  const int64_t one = loaded[9]->bytes();
  ASSERT_GT(one, 0);
  EXPECT_EQ(GetBenchmarkCacheStats().entries, 10);
  SetBenchmarkCacheLimit(3 * one + one / 2);  // room for 3
  EXPECT_EQ(GetBenchmarkCacheStats().entries, 3);
  EXPECT_LE(GetBenchmarkCacheStats().bytes, 3 * one + one / 2);
  EXPECT_EQ(get(9), loaded[9]);  // kept: among the 3 most recent (7, 8, 9)
  EXPECT_EQ(get(8), loaded[8]);
  const auto reloaded = get(0);  // dropped long ago: loads again, same program; 7 goes
  EXPECT_NE(reloaded, loaded[0]);
  EXPECT_EQ(reloaded->bitcode(), loaded[0]->bitcode());
  EXPECT_EQ(get(9), loaded[9]);
  EXPECT_NE(get(7), loaded[7]);  // 7 was the least recently used
  EXPECT_EQ(GetBenchmarkCacheStats().entries, 3);
  SetBenchmarkCacheLimit(int64_t{512} << 20);
  ClearBenchmarkCache();
}

TEST(LlvmEnv, ObjectTextSizeIsPositive) {
  LlvmEnv env;
  ASSERT_TRUE(env.Reset(FileBenchmark(Fixture("instcount.ll"))).ok());
  EXPECT_GT(ObserveInt(env, "ObjectTextSizeBytes"), 0);
  EXPECT_GT(ObserveInt(env, "ObjectTextSizeO0"), ObserveInt(env, "ObjectTextSizeOz"));
}

TEST(LlvmEnv, RegistryTableBuildsLlvmEnvs) {
  Registry registry;
  ASSERT_TRUE(RegisterLlvmEnvs(registry).ok());
  EXPECT_EQ(registry.entries().size(), 7u);
  for (const EnvEntry& entry : registry.entries()) {
    auto env = registry.Make(entry.id);
    ASSERT_TRUE(env.ok());
    EXPECT_EQ((*env)->Spec().family, "llvm");
    if (!entry.default_observation.empty()) {
      EXPECT_GE((*env)->Spec().ObservationIndex(entry.default_observation), 0) << entry.id;
    }
    if (!entry.default_reward.empty()) {
      EXPECT_GE((*env)->Spec().RewardIndex(entry.default_reward), 0) << entry.id;
    }
  }
}

TEST(LlvmEnv, EveryRewardRefersToKnownObservations) {
  const EnvSpec& spec = LlvmEnvSpec();
  EXPECT_EQ(spec.reward_spaces.size(), 13u);  // 3 costs x 4 formulas, and Runtime
  for (const RewardSpec& r : spec.reward_spaces) {
    EXPECT_GE(spec.ObservationIndex(r.cost_observation), 0) << r.name;
    EXPECT_GE(spec.ObservationIndex(r.initial_observation), 0) << r.name;
    if (r.kind == RewardKind::kNormByBaseline) {
      EXPECT_GE(spec.ObservationIndex(r.baseline_observation), 0) << r.name;
    }
  }
}

}  // namespace
}  // namespace compiler_gym::llvm_env
