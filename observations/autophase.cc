// Autophase's feature names, docs and computation: one pass over each defined function's blocks
// and instructions, counting into the 56 features.
#include "observations/autophase.h"

#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

namespace compiler_gym::observations {

const std::vector<std::string>& AutophaseFeatureNames() {
  static const std::vector<std::string> names = {
#define COMPILER_GYM_AUTOPHASE_NAME(name, doc) #name,
      COMPILER_GYM_AUTOPHASE_FEATURES(COMPILER_GYM_AUTOPHASE_NAME)
#undef COMPILER_GYM_AUTOPHASE_NAME
  };
  return names;
}

const std::vector<std::string>& AutophaseFeatureDocs() {
  static const std::vector<std::string> docs = {
#define COMPILER_GYM_AUTOPHASE_DOC(name, doc) doc,
      COMPILER_GYM_AUTOPHASE_FEATURES(COMPILER_GYM_AUTOPHASE_DOC)
#undef COMPILER_GYM_AUTOPHASE_DOC
  };
  return docs;
}

namespace {

using F = AutophaseFeature;

class Counter {
 public:
  void Inc(F f, int64_t n = 1) { values_[static_cast<int>(f)] += n; }
  const std::array<int64_t, kAutophaseNumFeatures>& values() const { return values_; }

 private:
  std::array<int64_t, kAutophaseNumFeatures> values_{};
};

void CountOpcode(const llvm::Instruction& inst, Counter& c) {
  switch (inst.getOpcode()) {
    case llvm::Instruction::AShr:
      c.Inc(F::NumAShrInst);
      break;
    case llvm::Instruction::Add:
      c.Inc(F::NumAddInst);
      break;
    case llvm::Instruction::Alloca:
      c.Inc(F::NumAllocaInst);
      break;
    case llvm::Instruction::And:
      c.Inc(F::NumAndInst);
      break;
    case llvm::Instruction::BitCast:
      c.Inc(F::NumBitCastInst);
      break;
    case llvm::Instruction::Br:
      c.Inc(F::NumBrInst);
      break;
    case llvm::Instruction::Call:
      c.Inc(F::NumCallInst);
      break;
    case llvm::Instruction::GetElementPtr:
      c.Inc(F::NumGetElementPtrInst);
      break;
    case llvm::Instruction::ICmp:
      c.Inc(F::NumICmpInst);
      break;
    case llvm::Instruction::LShr:
      c.Inc(F::NumLShrInst);
      break;
    case llvm::Instruction::Load:
      c.Inc(F::NumLoadInst);
      break;
    case llvm::Instruction::Mul:
      c.Inc(F::NumMulInst);
      break;
    case llvm::Instruction::Or:
      c.Inc(F::NumOrInst);
      break;
    case llvm::Instruction::PHI:
      c.Inc(F::NumPHIInst);
      break;
    case llvm::Instruction::Ret:
      c.Inc(F::NumRetInst);
      break;
    case llvm::Instruction::SExt:
      c.Inc(F::NumSExtInst);
      break;
    case llvm::Instruction::Select:
      c.Inc(F::NumSelectInst);
      break;
    case llvm::Instruction::Shl:
      c.Inc(F::NumShlInst);
      break;
    case llvm::Instruction::Store:
      c.Inc(F::NumStoreInst);
      break;
    case llvm::Instruction::Sub:
      c.Inc(F::NumSubInst);
      break;
    case llvm::Instruction::Trunc:
      c.Inc(F::NumTruncInst);
      break;
    case llvm::Instruction::Xor:
      c.Inc(F::NumXorInst);
      break;
    case llvm::Instruction::ZExt:
      c.Inc(F::NumZExtInst);
      break;
    default:
      break;
  }
}

void CountInstruction(const llvm::Instruction& inst, Counter& c) {
  c.Inc(F::TotalInsts);
  CountOpcode(inst, c);
  // LLVM's classic InstCount "memory instructions", which Autophase kept: calls and invokes
  // count, fences and atomics do not.
  switch (inst.getOpcode()) {
    case llvm::Instruction::GetElementPtr:
    case llvm::Instruction::Load:
    case llvm::Instruction::Store:
    case llvm::Instruction::Call:
    case llvm::Instruction::Invoke:
    case llvm::Instruction::Alloca:
      c.Inc(F::TotalMemInst);
      break;
    default:
      break;
  }
  if (llvm::isa<llvm::UnaryInstruction>(inst)) c.Inc(F::testUnary);
  if (const auto* br = llvm::dyn_cast<llvm::BranchInst>(&inst)) {
    c.Inc(F::BranchCount);
    if (br->isUnconditional()) c.Inc(F::UncondBranches);
  }
  if (const auto* call = llvm::dyn_cast<llvm::CallInst>(&inst)) {
    // The callee's return type, so indirect calls and inline asm (no callee) never count.
    const llvm::Function* callee = call->getCalledFunction();
    if (callee != nullptr && callee->getReturnType()->isIntegerTy()) c.Inc(F::returnInt);
  }
  if (const auto* phi = llvm::dyn_cast<llvm::PHINode>(&inst)) {
    c.Inc(F::ArgsPhi, phi->getNumIncomingValues());
  }
  bool has_constant_operand = false;
  for (const llvm::Use& operand : inst.operands()) {
    const llvm::Value* value = operand.get();
    if (llvm::isa<llvm::Constant>(value)) has_constant_operand = true;
    const auto* ci = llvm::dyn_cast<llvm::ConstantInt>(value);
    if (ci == nullptr) continue;
    if (ci->getBitWidth() == 32) c.Inc(F::const32Bit);
    if (ci->getBitWidth() == 64) c.Inc(F::const64Bit);
    if (ci->isZero()) c.Inc(F::numConstZeroes);
    if (ci->isOne()) c.Inc(F::numConstOnes);
  }
  if (llvm::isa<llvm::BinaryOperator>(inst) && has_constant_operand) c.Inc(F::binaryConstArg);
}

void CountBlock(const llvm::BasicBlock& block, Counter& c) {
  c.Inc(F::TotalBlocks);
  const size_t preds = llvm::pred_size(&block);
  const size_t succs = llvm::succ_size(&block);
  if (preds == 1) c.Inc(F::onePred);
  if (preds == 1 && succs == 1) c.Inc(F::onePredOneSuc);
  if (preds == 1 && succs == 2) c.Inc(F::onePredTwoSuc);
  if (succs == 1) c.Inc(F::oneSuccessor);
  if (preds == 2) c.Inc(F::twoPred);
  if (preds == 2 && succs == 1) c.Inc(F::twoPredOneSuc);
  if (preds == 2 && succs == 2) c.Inc(F::twoEach);
  if (succs == 2) c.Inc(F::twoSuccessor);
  if (preds > 2) c.Inc(F::morePreds);
  c.Inc(F::NumEdges, static_cast<int64_t>(succs));
  if (succs > 1) {
    for (const llvm::BasicBlock* succ : llvm::successors(&block)) {
      if (llvm::pred_size(succ) > 1) c.Inc(F::CriticalCount);
    }
  }

  int64_t phis = 0;
  int64_t phi_args = 0;
  int64_t size = 0;
  for (const llvm::Instruction& inst : block) {
    ++size;
    if (const auto* phi = llvm::dyn_cast<llvm::PHINode>(&inst)) {
      ++phis;
      phi_args += phi->getNumIncomingValues();
    }
    CountInstruction(inst, c);
  }
  if (phi_args > 5) c.Inc(F::BBNumArgsHi);
  if (phi_args >= 1 && phi_args <= 5) c.Inc(F::BBNumArgsLo);
  // Blocks whose first instruction is a phi: LLVM keeps phis first, so blocks with any.
  if (phis >= 1) c.Inc(F::BeginPhi);
  if (phis >= 1 && phis <= 3) c.Inc(F::BB03Phi);
  if (phis > 3) c.Inc(F::BBHiPhi);
  if (phis == 0) c.Inc(F::BBNoPhi);
  if (size >= 15 && size <= 500) c.Inc(F::BlockMid);
  if (size < 15) c.Inc(F::BlockLow);
}

}  // namespace

std::array<int64_t, kAutophaseNumFeatures> ComputeAutophase(const llvm::Module& module) {
  Counter c;
  for (const llvm::Function& function : module) {
    if (function.isDeclaration()) continue;
    c.Inc(F::TotalFuncs);
    for (const llvm::BasicBlock& block : function) CountBlock(block, c);
  }
  return c.values();
}

}  // namespace compiler_gym::observations
