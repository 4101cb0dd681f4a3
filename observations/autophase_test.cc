// Tests of Autophase on the small IR fixtures in tests/data: every feature's expected value,
// the zero ones included.
#include "observations/autophase.h"

#include <map>

#include "observations/test_util.h"

namespace compiler_gym::observations {
namespace {

std::map<std::string, int64_t> Compute(const std::string& fixture) {
  llvm::LLVMContext context;
  auto module = testing::ParseFixture(fixture, context);
  const auto values = ComputeAutophase(*module);
  std::map<std::string, int64_t> out;
  for (int i = 0; i < kAutophaseNumFeatures; ++i) out[AutophaseFeatureNames()[i]] = values[i];
  return out;
}

void ExpectAll(const std::map<std::string, int64_t>& actual,
               const std::map<std::string, int64_t>& nonzero) {
  for (const auto& [name, value] : actual) {
    auto it = nonzero.find(name);
    EXPECT_EQ(value, it == nonzero.end() ? 0 : it->second) << name;
  }
  for (const auto& [name, value] : nonzero) EXPECT_TRUE(actual.count(name)) << name;
}

TEST(Autophase, TableHas56NamedFeaturesInOrder) {
  const auto& names = AutophaseFeatureNames();
  ASSERT_EQ(names.size(), 56u);
  EXPECT_EQ(names.front(), "BBNumArgsHi");
  EXPECT_EQ(names[17], "CriticalCount");
  EXPECT_EQ(names[29], "BlockMid");
  EXPECT_EQ(names.back(), "testUnary");
  EXPECT_EQ(AutophaseFeatureDocs().size(), 56u);
}

// tests/data/autophase.ll, block by block (preds, succs, phis, phiargs):
//   f.entry (0,2,0,0)  f.a (1,2,0,0)  f.b (1,1,0,0)  f.join (3,0,4,12)
//   loop.entry (0,1,0,0)  loop.head (2,2,1,2)  loop.body (1,1,0,0)  loop.exit (1,0,0,0)
// Critical edges: f.entry->join and f.a->join (source has 2 succs, join has 3 preds).
// BeginPhi: the blocks that start with a phi, f.join and loop.head (5 phis in all).
// Constants: i64 1 (add), 0 5 (p1), 1 2 3 (p2); i32 0 (phi), 1 (add).
TEST(Autophase, CfgAndPhiFixture) {
  ExpectAll(
      Compute("autophase.ll"),
      {{"BBNumArgsHi", 1},   {"BBNumArgsLo", 1},    {"onePred", 4},        {"onePredOneSuc", 2},
       {"onePredTwoSuc", 1}, {"oneSuccessor", 3},   {"twoPred", 1},        {"twoEach", 1},
       {"twoSuccessor", 3},  {"morePreds", 1},      {"BB03Phi", 1},        {"BBHiPhi", 1},
       {"BBNoPhi", 6},       {"BeginPhi", 2},       {"BranchCount", 6},    {"CriticalCount", 2},
       {"NumEdges", 9},      {"const32Bit", 2},     {"const64Bit", 6},     {"numConstZeroes", 2},
       {"numConstOnes", 3},  {"UncondBranches", 3}, {"binaryConstArg", 2}, {"NumAddInst", 3},
       {"BlockLow", 8},      {"NumBrInst", 6},      {"NumICmpInst", 1},    {"NumPHIInst", 5},
       {"NumRetInst", 2},    {"TotalBlocks", 8},    {"TotalInsts", 17},    {"TotalFuncs", 2},
       {"ArgsPhi", 14}});
}

// tests/data/autophase_mid.ll: one block of 15 instructions. Binary ops with a constant: xor 7,
// shl 2, lshr 1, ashr 1, and 255, or 16. Unary instructions: trunc zext sext bitcast. Memory
// opcode group: getelementptr. Ones: lshr 1, ashr 1, select's i1 true.
TEST(Autophase, OpcodeAndBlockSizeFixture) {
  ExpectAll(Compute("autophase_mid.ll"), {{"onePred", 0},        {"BBNoPhi", 1},
                                          {"const32Bit", 6},     {"numConstOnes", 3},
                                          {"binaryConstArg", 6}, {"NumAShrInst", 1},
                                          {"NumAndInst", 1},     {"BlockMid", 1},
                                          {"NumBitCastInst", 1}, {"NumGetElementPtrInst", 1},
                                          {"NumLShrInst", 1},    {"NumMulInst", 1},
                                          {"NumOrInst", 1},      {"NumRetInst", 1},
                                          {"NumSExtInst", 1},    {"NumSelectInst", 1},
                                          {"NumShlInst", 1},     {"NumSubInst", 1},
                                          {"NumTruncInst", 1},   {"NumXorInst", 1},
                                          {"NumZExtInst", 1},    {"TotalBlocks", 1},
                                          {"TotalInsts", 15},    {"TotalMemInst", 1},
                                          {"TotalFuncs", 1},     {"testUnary", 4}});
}

// tests/data/instcount.ll: calls returning an int, memory instructions, alloca's implicit
// array-size operand (i32 1).
TEST(Autophase, MemoryAndCallFixture) {
  const auto v = Compute("instcount.ll");
  EXPECT_EQ(v.at("returnInt"), 1);
  EXPECT_EQ(v.at("TotalMemInst"), 5);  // call, alloca store load store
  EXPECT_EQ(v.at("testUnary"), 2);     // alloca load
  EXPECT_EQ(v.at("const32Bit"), 5);    // icmp 0, mul 2, sub 0, alloca 1, store 1
  EXPECT_EQ(v.at("numConstZeroes"), 2);
  EXPECT_EQ(v.at("numConstOnes"), 2);
  EXPECT_EQ(v.at("binaryConstArg"), 2);  // mul, sub
  EXPECT_EQ(v.at("CriticalCount"), 0);
  EXPECT_EQ(v.at("NumEdges"), 4);
}

// tests/data/autophase_calls.ll: returnInt counts the direct calls of get (i32) and wide (i64),
// not put (void), the indirect call or the inline asm (no known callee); TotalMemInst counts
// the five calls, getelementptr and store, not fence or atomicrmw (LLVM's InstCount groups).
TEST(Autophase, CallsAndMemoryAsInstCountGroupedThem) {
  const auto v = Compute("autophase_calls.ll");
  EXPECT_EQ(v.at("NumCallInst"), 5);
  EXPECT_EQ(v.at("returnInt"), 2);
  EXPECT_EQ(v.at("TotalMemInst"), 7);
  EXPECT_EQ(v.at("NumStoreInst"), 1);
  EXPECT_EQ(v.at("BeginPhi"), 0);
  EXPECT_EQ(v.at("TotalInsts"), 10);
}

}  // namespace
}  // namespace compiler_gym::observations
