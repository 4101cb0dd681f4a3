// Tests of GccSpec parsing, the actions made from it and command lines, on gcc-12's -Q help
// output recorded in tests/data/gcc (so no GCC is needed).
#include "envs/gcc/gcc_spec.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "envs/gcc/gcc_env.h"

namespace compiler_gym::gcc_env {
namespace {

std::string Fixture(const std::string& name) {
  std::ifstream in(std::string(CG_SOURCE_DIR) + "/tests/data/gcc/" + name);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

GccSpec Gcc12() {
  StatusOr<GccSpec> spec =
      ParseGccSpec(Fixture("gcc-12-optimizers.txt"), Fixture("gcc-12-params.txt"));
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  return std::move(spec).value();
}

const GccOption* Find(const GccSpec& spec, std::string_view name) {
  for (const GccOption& o : spec.options) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

TEST(GccSpecTest, CountsOfEachKindOnTheRecordedGcc12Output) {
  const GccSpec spec = Gcc12();
  std::map<std::string, int> counts;
  for (const GccOption& o : spec.options) {
    ++counts[std::string(OptionKindName(o.kind)) + (o.is_param ? "-param" : "")];
  }
  EXPECT_EQ(counts["olevel"], 1);
  EXPECT_EQ(counts["flag"], 225);  // -gstatement-frontiers is listed too: not an -f flag
  EXPECT_EQ(counts["enum"], 11);
  EXPECT_EQ(counts["int"], 4);
  EXPECT_EQ(counts["enum-param"], 3);
  EXPECT_EQ(counts["int-param"], 270);
  EXPECT_EQ(spec.options.size(), size_t{514});
  EXPECT_EQ(MakeActions(spec).size(), size_t{2369});
}

TEST(GccSpecTest, OptionsOfEachKindParseWithTheirValues) {
  const GccSpec spec = Gcc12();
  // Options are ordered: the -O level, then -f flags by name, then params by name.
  ASSERT_EQ(spec.options[0].kind, OptionKind::kOLevel);
  EXPECT_EQ(spec.options[0].values,
            (std::vector<std::string>{"0", "1", "2", "3", "fast", "g", "s", "z"}));
  EXPECT_EQ(spec.options[0].Render(4), "-Ofast");
  EXPECT_EQ(spec.options[1].name, "-faggressive-loop-optimizations");
  EXPECT_TRUE(spec.options.back().is_param);

  const GccOption* flag = Find(spec, "-ftree-pre");
  ASSERT_NE(flag, nullptr);
  EXPECT_EQ(flag->kind, OptionKind::kFlag);
  EXPECT_EQ(flag->default_value, "[disabled]");
  EXPECT_EQ(flag->Render(0), "-ftree-pre");
  EXPECT_EQ(flag->Render(1), "-fno-tree-pre");
  EXPECT_EQ(flag->Render(-1), "");

  const GccOption* positive_only = Find(spec, "-fstack-protector-all");
  ASSERT_NE(positive_only, nullptr);
  EXPECT_EQ(positive_only->NumValues(), 1);

  const GccOption* fenum = Find(spec, "-fvect-cost-model");
  ASSERT_NE(fenum, nullptr);
  EXPECT_EQ(fenum->kind, OptionKind::kEnum);
  EXPECT_EQ(fenum->values,
            (std::vector<std::string>{"unlimited", "dynamic", "cheap", "very-cheap"}));
  EXPECT_EQ(fenum->Render(2), "-fvect-cost-model=cheap");

  const GccOption* fint = Find(spec, "-flifetime-dse");
  ASSERT_NE(fint, nullptr);
  EXPECT_EQ(fint->kind, OptionKind::kInt);
  EXPECT_EQ(fint->min, 0);
  EXPECT_EQ(fint->max, 2);

  const GccOption* pack = Find(spec, "-fpack-struct");
  ASSERT_NE(pack, nullptr);
  EXPECT_EQ(pack->values, (std::vector<std::string>{"1", "2", "4", "8", "16"}));

  const GccOption* ranged = Find(spec, "--param=align-threshold");
  ASSERT_NE(ranged, nullptr);
  EXPECT_EQ(ranged->min, 1);
  EXPECT_EQ(ranged->max, 65536);
  EXPECT_EQ(ranged->default_value, "100");
  EXPECT_EQ(ranged->DefaultChoice(), 99);
  EXPECT_EQ(ranged->Render(99), "--param=align-threshold=100");
  EXPECT_EQ(ranged->ParseArg("--param=align-threshold=100"), 99);
  EXPECT_EQ(ranged->ParseArg("--param=align-threshold=0"), -1);

  const GccOption* unbounded = Find(spec, "--param=align-loop-iterations");
  ASSERT_NE(unbounded, nullptr);
  EXPECT_EQ(unbounded->min, 0);
  EXPECT_EQ(unbounded->max, 2147483647);

  // GCC's "unset" default of -1 is no value for the command line, which wants >= 0.
  const GccOption* unset = Find(spec, "--param=sched-autopref-queue-depth");
  ASSERT_NE(unset, nullptr);
  EXPECT_EQ(unset->default_value, "-1");
  EXPECT_EQ(unset->min, 0);
  EXPECT_EQ(unset->DefaultChoice(), 0);

  const GccOption* penum = Find(spec, "--param=parloops-schedule");
  ASSERT_NE(penum, nullptr);
  EXPECT_EQ(penum->values.size(), 5u);

  // Other languages' options, aliases, and joined strings are not C options of their own.
  EXPECT_EQ(Find(spec, "-fexceptions"), nullptr);
  EXPECT_EQ(Find(spec, "-frtti"), nullptr);
  EXPECT_EQ(Find(spec, "-fhandle-exceptions"), nullptr);
  EXPECT_EQ(Find(spec, "--param=lazy-modules"), nullptr);
  ASSERT_NE(Find(spec, "-falign-functions"), nullptr);
  EXPECT_EQ(Find(spec, "-falign-functions")->kind, OptionKind::kFlag);
  // Listed, but live patching is no optimization, and GCC refuses it beside most -fipa-*.
  EXPECT_EQ(Find(spec, "-flive-patching"), nullptr);
}

TEST(GccSpecTest, ActionsSetSmallOptionsAndStepLargeOnes) {
  const GccSpec spec = Gcc12();
  const std::vector<GccAction> actions = MakeActions(spec);
  EXPECT_EQ(actions[0].name, "-O0");
  EXPECT_EQ(actions[7].name, "-Oz");
  std::map<std::string, const GccAction*> by_name;
  for (const GccAction& a : actions) {
    EXPECT_TRUE(by_name.emplace(a.name, &a).second) << "duplicate action " << a.name;
  }
  ASSERT_TRUE(by_name.count("-fno-tree-pre"));
  EXPECT_FALSE(by_name["-fno-tree-pre"]->delta);
  EXPECT_EQ(by_name["-fno-tree-pre"]->value, 1);
  // 65536 values: all four step sizes.
  for (const char* name : {"--param=align-threshold[+1]", "--param=align-threshold[-1]",
                           "--param=align-threshold[+10]", "--param=align-threshold[-1000]"}) {
    ASSERT_TRUE(by_name.count(name)) << name;
  }
  EXPECT_EQ(by_name["--param=align-threshold[-1000]"]->value, -1000);
  // 3 values: one action each, no steps.
  EXPECT_TRUE(by_name.count("-flifetime-dse=2"));
  EXPECT_FALSE(by_name.count("-flifetime-dse[+1]"));
}

TEST(GccSpecTest, CommandLinesRoundTripThroughChoices) {
  const GccSpec spec = Gcc12();
  std::vector<int64_t> choices(spec.options.size(), -1);
  choices[0] = 6;  // -Os
  const auto at = [&](std::string_view name) {
    return static_cast<size_t>(Find(spec, name) - spec.options.data());
  };
  choices[at("-ftree-pre")] = 1;
  choices[at("-fvect-cost-model")] = 2;
  choices[at("--param=align-threshold")] = 4;
  const std::vector<std::string> args = ChoiceArgs(spec, choices);
  EXPECT_EQ(args, (std::vector<std::string>{"-Os", "-fno-tree-pre", "-fvect-cost-model=cheap",
                                            "--param=align-threshold=5"}));
  std::string line = "gcc";
  for (const std::string& a : args) line += " " + a;
  line += " -w -c src.c -o obj.o";
  StatusOr<std::vector<int64_t>> parsed = ParseCommandLine(spec, line);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, choices);

  StatusOr<std::vector<int64_t>> unknown = ParseCommandLine(spec, "gcc -fno-such-thing");
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  StatusOr<std::vector<int64_t>> out_of_range =
      ParseCommandLine(spec, "gcc --param=align-threshold=70000");
  EXPECT_EQ(out_of_range.status().code(), StatusCode::kInvalidArgument);
}

TEST(GccSpecTest, OutputThatIsNotGccIsRefused) {
  EXPECT_EQ(ParseGccSpec("clang version 19\n", "").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseGccSpec("", "").status().code(), StatusCode::kInvalidArgument);
}

TEST(GccSpecTest, InstructionCountsCountTabIndentedMnemonics) {
  const std::string assembly =
      "\t.file\t\"src.c\"\n"
      "f:\n"
      ".LFB0:\n"
      "\t.cfi_startproc\n"
      "\tleal\t(%rdi,%rdi,2), %eax\n"
      "\tret\n"
      "\tret\n"
      "  movl %eax, %ebx\n";
  const std::map<std::string, int64_t> expected = {
      {".file", 1}, {".cfi", 1}, {"leal", 1}, {"ret", 2}};
  EXPECT_EQ(InstructionCounts(assembly), expected);
}

}  // namespace
}  // namespace compiler_gym::gcc_env
