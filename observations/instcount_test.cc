// Tests of InstCount and InstCountNorm: the feature order against LLVM's Instruction.def, and
// counts on a hand-written IR fixture (tests/data/instcount.ll).
#include "observations/instcount.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "observations/test_util.h"

namespace compiler_gym::observations {
namespace {

int Index(const std::string& name) {
  const auto& names = InstCountFeatureNames();
  auto it = std::find(names.begin(), names.end(), name);
  EXPECT_NE(it, names.end()) << name;
  return static_cast<int>(it - names.begin());
}

TEST(InstCount, FeatureNamesFollowInstructionDef) {
  const auto& names = InstCountFeatureNames();
  ASSERT_EQ(names.size(), 70u);
  EXPECT_EQ(names[0], "TotalInsts");
  EXPECT_EQ(names[2], "TotalFuncs");
  EXPECT_EQ(names[3], "Ret");
  EXPECT_EQ(names[14], "FNeg");
  EXPECT_EQ(names[33], "Alloca");
  EXPECT_EQ(names[69], "Freeze");
}

// tests/data/instcount.ll by hand:
//   @add: entry {add icmp br} pos {mul br} neg {sub br} exit {phi call ret} = 10 insts, 4 blocks
//   @store: entry {alloca store load store ret} = 5 insts, 1 block
//   @ext is a declaration: not a function we count.
TEST(InstCount, HandWrittenFixture) {
  llvm::LLVMContext context;
  auto module = testing::ParseFixture("instcount.ll", context);
  const auto counts = ComputeInstCount(*module);
  EXPECT_EQ(counts[0], 15);
  EXPECT_EQ(counts[1], 5);
  EXPECT_EQ(counts[2], 2);
  const std::map<std::string, int64_t> expected = {
      {"Ret", 2},  {"Br", 3},    {"Add", 1},  {"Sub", 1}, {"Mul", 1}, {"Alloca", 1},
      {"Load", 1}, {"Store", 2}, {"ICmp", 1}, {"PHI", 1}, {"Call", 1}};
  for (int i = 3; i < kInstCountNumFeatures; ++i) {
    const std::string& name = InstCountFeatureNames()[i];
    auto it = expected.find(name);
    EXPECT_EQ(counts[i], it == expected.end() ? 0 : it->second) << name;
  }
  EXPECT_EQ(counts[Index("Store")], 2);
  // Invariant: opcode counts sum to TotalInsts.
  EXPECT_EQ(std::accumulate(counts.begin() + 3, counts.end(), int64_t{0}), counts[0]);
}

TEST(InstCount, NormDividesByTotalInsts) {
  llvm::LLVMContext context;
  auto module = testing::ParseFixture("instcount.ll", context);
  const auto counts = ComputeInstCount(*module);
  const auto norm = InstCountNorm(counts);
  ASSERT_EQ(norm.size(), 69u);
  EXPECT_FLOAT_EQ(norm[0], 5.0f / 15);  // TotalBlocks
  EXPECT_FLOAT_EQ(norm[Index("Br") - 1], 3.0f / 15);
}

TEST(InstCount, EmptyModuleHasNoDivisionByZero) {
  llvm::LLVMContext context;
  llvm::Module module("empty", context);
  const auto counts = ComputeInstCount(module);
  EXPECT_EQ(counts[0], 0);
  for (float v : InstCountNorm(counts)) EXPECT_EQ(v, 0.0f);
}

}  // namespace
}  // namespace compiler_gym::observations
