// Autophase: 56 int64 features of an LLVM module (Huang et al., FCCM 2019), CompilerGym's
// "Autophase" space. Each feature is one row of the table below; autophase.cc computes them in
// one pass over the defined functions. Exact definitions:
//
//  preds(B)/succs(B): predecessor/successor edges of block B, counting a block once per edge
//                      (a switch with two cases to the same block gives two edges).
//  phis(B): phi nodes in B; phiargs(B): incoming values summed over the phis of B.
//  operand constants: every operand of every instruction is inspected (phi incoming values too).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace compiler_gym::observations {

// X(name, definition)
#define COMPILER_GYM_AUTOPHASE_FEATURES(X)                                                        \
  X(BBNumArgsHi, "blocks with phiargs(B) > 5")                                                    \
  X(BBNumArgsLo, "blocks with 1 <= phiargs(B) <= 5")                                              \
  X(onePred, "blocks with preds == 1")                                                            \
  X(onePredOneSuc, "blocks with preds == 1 and succs == 1")                                       \
  X(onePredTwoSuc, "blocks with preds == 1 and succs == 2")                                       \
  X(oneSuccessor, "blocks with succs == 1")                                                       \
  X(twoPred, "blocks with preds == 2")                                                            \
  X(twoPredOneSuc, "blocks with preds == 2 and succs == 1")                                       \
  X(twoEach, "blocks with preds == 2 and succs == 2")                                             \
  X(twoSuccessor, "blocks with succs == 2")                                                       \
  X(morePreds, "blocks with preds > 2")                                                           \
  X(BB03Phi, "blocks with 1 <= phis(B) <= 3")                                                     \
  X(BBHiPhi, "blocks with phis(B) > 3")                                                           \
  X(BBNoPhi, "blocks with phis(B) == 0")                                                          \
  X(BeginPhi, "blocks whose first instruction is a phi (LLVM keeps phis first: blocks with any)") \
  X(BranchCount, "br instructions, conditional or not")                                           \
  X(returnInt, "calls to a known function that returns an integer (not indirect calls)")          \
  X(CriticalCount, "critical edges: edges from a block with succs > 1 to a block with preds > 1") \
  X(NumEdges, "CFG edges: the sum of succs(B) over all blocks")                                   \
  X(const32Bit, "operands that are 32-bit ConstantInts")                                          \
  X(const64Bit, "operands that are 64-bit ConstantInts")                                          \
  X(numConstZeroes, "operands that are ConstantInts equal to 0 (any width)")                      \
  X(numConstOnes, "operands that are ConstantInts equal to 1 (any width, i1 true too)")           \
  X(UncondBranches, "unconditional br instructions")                                              \
  X(binaryConstArg, "binary operators with at least one Constant operand")                        \
  X(NumAShrInst, "ashr instructions")                                                             \
  X(NumAddInst, "add instructions (integer)")                                                     \
  X(NumAllocaInst, "alloca instructions")                                                         \
  X(NumAndInst, "and instructions")                                                               \
  X(BlockMid, "blocks with 15 <= instructions <= 500")                                            \
  X(BlockLow, "blocks with fewer than 15 instructions")                                           \
  X(NumBitCastInst, "bitcast instructions")                                                       \
  X(NumBrInst, "br instructions")                                                                 \
  X(NumCallInst, "call instructions")                                                             \
  X(NumGetElementPtrInst, "getelementptr instructions")                                           \
  X(NumICmpInst, "icmp instructions")                                                             \
  X(NumLShrInst, "lshr instructions")                                                             \
  X(NumLoadInst, "load instructions")                                                             \
  X(NumMulInst, "mul instructions (integer)")                                                     \
  X(NumOrInst, "or instructions")                                                                 \
  X(NumPHIInst, "phi instructions")                                                               \
  X(NumRetInst, "ret instructions")                                                               \
  X(NumSExtInst, "sext instructions")                                                             \
  X(NumSelectInst, "select instructions")                                                         \
  X(NumShlInst, "shl instructions")                                                               \
  X(NumStoreInst, "store instructions")                                                           \
  X(NumSubInst, "sub instructions (integer)")                                                     \
  X(NumTruncInst, "trunc instructions")                                                           \
  X(NumXorInst, "xor instructions")                                                               \
  X(NumZExtInst, "zext instructions")                                                             \
  X(TotalBlocks, "basic blocks")                                                                  \
  X(TotalInsts, "instructions")                                                                   \
  X(TotalMemInst,                                                                                 \
    "memory instructions as LLVM's InstCount counted them: getelementptr load store call "        \
    "invoke alloca (not fence, cmpxchg, atomicrmw)")                                              \
  X(TotalFuncs, "defined (non-external) functions")                                               \
  X(ArgsPhi, "phi incoming values, summed over all phis")                                         \
  X(testUnary,                                                                                    \
    "unary instructions (llvm::UnaryInstruction: alloca load casts va_arg extractvalue "          \
    "fneg freeze)")

enum class AutophaseFeature {
#define COMPILER_GYM_AUTOPHASE_ENUM(name, doc) name,
  COMPILER_GYM_AUTOPHASE_FEATURES(COMPILER_GYM_AUTOPHASE_ENUM)
#undef COMPILER_GYM_AUTOPHASE_ENUM
      kCount
};

inline constexpr int kAutophaseNumFeatures = static_cast<int>(AutophaseFeature::kCount);
static_assert(kAutophaseNumFeatures == 56);

const std::vector<std::string>& AutophaseFeatureNames();
const std::vector<std::string>& AutophaseFeatureDocs();

std::array<int64_t, kAutophaseNumFeatures> ComputeAutophase(const llvm::Module& module);

}  // namespace compiler_gym::observations
