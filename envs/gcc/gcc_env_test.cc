// GccEnv against the machine's own GCC (Debian's gcc-12 on ours).
#include "envs/gcc/gcc_env.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "envs/gcc/compile_cache.h"

namespace compiler_gym::gcc_env {
namespace {

Benchmark Program(const std::string& name) {
  Benchmark b;
  b.uri = "benchmark://builtin-v0/" + name;
  b.files = {std::string(CG_SOURCE_DIR) + "/python/compiler_gym/data/builtin-v0/src/" + name +
             ".c"};
  return b;
}

int Action(const Env& env, const std::string& name) {
  const auto& names = env.Spec().action_spaces[0].action_names;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  ADD_FAILURE() << "no action " << name;
  return -1;
}

template <typename T>
T Get(Env& env, const std::string& space) {
  StatusOr<Observation> value = env.Observe(env.Spec().ObservationIndex(space));
  EXPECT_TRUE(value.ok()) << value.status().ToString();
  return std::get<T>(*value);
}

TEST(GccEnvTest, EachActionChangesOneChoiceAndTheCommandLineSaysSo) {
  GccEnv env;
  ASSERT_TRUE(env.Reset(Program("crc32")).ok());
  const auto before = Get<std::vector<int64_t>>(env, "choices");
  EXPECT_EQ(before, std::vector<int64_t>(before.size(), -1));
  EXPECT_EQ(Get<Text>(env, "command_line").data, "gcc -w -c src.c -o obj.o");

  StatusOr<StepOutcome> out = env.Step(std::vector<int>{Action(env, "-Os")});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->action_had_no_effect);
  EXPECT_FALSE(out->done);
  auto after = Get<std::vector<int64_t>>(env, "choices");
  EXPECT_EQ(after[0], 6);
  after[0] = -1;
  EXPECT_EQ(after, before);
  EXPECT_EQ(Get<Text>(env, "command_line").data, "gcc -Os -w -c src.c -o obj.o");

  // Steps from "not chosen": +1 picks the lowest value, -1 goes back to not chosen.
  ASSERT_TRUE(env.Step(std::vector<int>{Action(env, "--param=align-threshold[+10]")}).ok());
  EXPECT_EQ(Get<Text>(env, "command_line").data,
            "gcc -Os --param=align-threshold=10 -w -c src.c -o obj.o");
  ASSERT_TRUE(env.Step(std::vector<int>{Action(env, "--param=align-threshold[-1000]")}).ok());
  EXPECT_EQ(Get<Text>(env, "command_line").data, "gcc -Os -w -c src.c -o obj.o");
  StatusOr<StepOutcome> again = env.Step(std::vector<int>{Action(env, "-Os")});
  EXPECT_TRUE(again->action_had_no_effect);
}

TEST(GccEnvTest, SizeRewardsSumToTheSizeChangeAndTheCacheHits) {
  CompileCache::Get().Clear();
  GccEnv env;
  ASSERT_TRUE(env.Reset(Program("qsort")).ok());
  const int obj_reward = env.Spec().RewardIndex("obj_size");
  ASSERT_TRUE(env.Reward(obj_reward).ok());  // fixes the start, as reset() does in Python
  const int64_t o0 = Get<int64_t>(env, "obj_size");
  EXPECT_EQ(o0, Get<int64_t>(env, "obj_size_O0"));
  double total = 0;
  for (const char* action : {"-O2", "-fno-inline", "-Os", "-O2"}) {
    ASSERT_TRUE(env.Step(std::vector<int>{Action(env, action)}).ok());
    total += env.Reward(obj_reward).value();
  }
  const int64_t final_size = Get<int64_t>(env, "obj_size");
  EXPECT_EQ(total, static_cast<double>(o0 - final_size));
  EXPECT_LT(final_size, o0);
  EXPECT_EQ(Get<int64_t>(env, "obj_size"),
            static_cast<int64_t>(Get<Bytes>(env, "obj").data.size()));
  EXPECT_EQ(Get<Text>(env, "obj_hash").data.size(), 32u);
  // -O0 (reset), -O2, -O2 -fno-inline, -Os -fno-inline: four compiles; the last -O2 -fno-inline
  // and the extra reads were hits.
  const CompileCacheStats stats = CompileCache::Get().Stats();
  EXPECT_EQ(stats.compiles, 1 + 4);  // the preprocessing, and four object files
  EXPECT_GE(stats.hits, 1);

  // A fork, and a second env on the same program, compile nothing new.
  auto fork = env.Fork();
  ASSERT_TRUE(fork.ok());
  GccEnv other;
  ASSERT_TRUE(other.Reset(Program("qsort")).ok());
  ASSERT_TRUE(
      other.Step(std::vector<int>{Action(other, "-O2"), Action(other, "-fno-inline")}).ok());
  EXPECT_EQ(Get<int64_t>(other, "obj_size"), final_size);
  EXPECT_EQ(Get<int64_t>(**fork, "obj_size"), final_size);
  EXPECT_EQ(CompileCache::Get().Stats().compiles, 5);
}

TEST(GccEnvTest, AssemblyObservationsAgree) {
  GccEnv env;
  ASSERT_TRUE(env.Reset(Program("crc32")).ok());
  ASSERT_TRUE(env.Step(std::vector<int>{Action(env, "-O2")}).ok());
  const std::string assembly = Get<Text>(env, "asm").data;
  EXPECT_EQ(Get<int64_t>(env, "asm_size"), static_cast<int64_t>(assembly.size()));
  const auto counts = nlohmann::json::parse(Get<Json>(env, "instruction_counts").data);
  EXPECT_GT(counts["ret"].get<int>(), 0);
  EXPECT_NE(Get<Text>(env, "rtl").data.find("(insn"), std::string::npos);
  EXPECT_NE(Get<Text>(env, "source").data.find("crc32"), std::string::npos);
}

TEST(GccEnvTest, AFailingCompileIsATypedErrorAndTheEnvResets) {
  GccEnv env;
  ASSERT_TRUE(env.Reset(Program("crc32")).ok());
  // Two options GCC refuses together.
  ASSERT_TRUE(env.Step(std::vector<int>{Action(env, "-fsection-anchors"),
                                        Action(env, "-fno-toplevel-reorder")})
                  .ok());
  StatusOr<Observation> size = env.Observe(env.Spec().ObservationIndex("obj_size"));
  EXPECT_EQ(size.status().code(), StatusCode::kAborted);
  EXPECT_NE(size.status().message().find("section anchors must be disabled"), std::string::npos)
      << size.status().message();
  ASSERT_TRUE(env.Reset(Program("crc32")).ok());
  EXPECT_GT(Get<int64_t>(env, "obj_size"), 0);

  ASSERT_TRUE(env.SetParameter("compile_timeout_seconds", "0.001").ok());
  ASSERT_TRUE(env.Step(std::vector<int>{Action(env, "-O3")}).ok());
  EXPECT_EQ(env.Observe(env.Spec().ObservationIndex("asm")).status().code(),
            StatusCode::kDeadlineExceeded);
  EXPECT_EQ(env.SetParameter("compile_timeout_seconds", "0").code(), StatusCode::kInvalidArgument);
}

TEST(GccEnvTest, BadCompilersAndBadStatesAreTypedErrors) {
  GccEnv env;
  EXPECT_EQ(env.SetParameter("gcc_bin", "/no/such/gcc").code(), StatusCode::kNotFound);
  EXPECT_EQ(env.SetParameter("gcc_bin", "no-such-gcc-command").code(), StatusCode::kNotFound);
  // An executable that is not GCC.
  EXPECT_EQ(env.SetParameter("gcc_bin", "/bin/true").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(env.GetParameter("gcc_bin").value(), "gcc");
  ASSERT_TRUE(env.SetParameter("gcc_bin", "gcc-12").ok());

  ASSERT_TRUE(env.Reset(Program("crc32")).ok());
  EXPECT_EQ(env.SetParameter("gcc_bin", "gcc").code(), StatusCode::kFailedPrecondition);
  const size_t n = env.Spec().observation_spaces[env.Spec().ObservationIndex("choices")].shape[0];
  std::vector<int64_t> choices(n, -1);
  EXPECT_EQ(env.Call("set_choices", "[1, 2]").status().code(), StatusCode::kInvalidArgument);
  choices[0] = 8;  // -O has 8 values: 0..7
  EXPECT_EQ(env.Call("set_choices", nlohmann::json(choices).dump()).status().code(),
            StatusCode::kInvalidArgument);
  choices[0] = 2;
  ASSERT_TRUE(env.Call("set_choices", nlohmann::json(choices).dump()).ok());
  EXPECT_EQ(Get<Text>(env, "command_line").data, "gcc-12 -O2 -w -c src.c -o obj.o");
  EXPECT_EQ(env.Call("parse_command_line", "gcc-12 -O2 -w -c src.c -o obj.o").value(),
            nlohmann::json(choices).dump());

  Benchmark bitcode;
  bitcode.uri = "file:///tmp/x.bc";
  bitcode.files = {"/tmp/x.bc"};
  EXPECT_EQ(env.Reset(bitcode).code(), StatusCode::kBenchmarkInit);
  Benchmark broken;
  broken.uri = "benchmark://user/broken";
  broken.data = "#include <no_such_header.h>\n";
  EXPECT_EQ(env.Reset(broken).code(), StatusCode::kBenchmarkInit);
}

TEST(GccEnvTest, SourceInMemoryCompiles) {
  GccEnv env;
  Benchmark b;
  b.uri = "benchmark://user/f";
  b.data = "int f(int x) { return x * 3; }\n";
  ASSERT_TRUE(env.Reset(b).ok());
  EXPECT_GT(Get<int64_t>(env, "obj_size"), 0);
  EXPECT_EQ(nlohmann::json::parse(Get<Json>(env, "instruction_counts").data).count("ret"), 1u);
}

}  // namespace
}  // namespace compiler_gym::gcc_env
