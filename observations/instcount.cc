// InstCount's feature names (the opcodes from LLVM's Instruction.def), counts and the
// normalized InstCountNorm.
#include "observations/instcount.h"

#include <algorithm>

#include "llvm/IR/Instruction.h"
#include "llvm/IR/Module.h"

namespace compiler_gym::observations {

// The opcode list comes from LLVM itself so it cannot drift from the IR we count; the assert
// pins the count that the feature vector (and CompilerGym's 70-wide space) promises.
static_assert(llvm::Instruction::OtherOpsEnd - 1 == kInstCountNumOpcodes,
              "LLVM's opcode list changed: InstCount's width must be revisited");

const std::vector<std::string>& InstCountFeatureNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"TotalInsts", "TotalBlocks", "TotalFuncs"};
    n.resize(3 + kInstCountNumOpcodes);
#define HANDLE_INST(num, opcode, klass) n[2 + num] = #opcode;
#include "llvm/IR/Instruction.def"
    return n;
  }();
  return names;
}

std::array<int64_t, kInstCountNumFeatures> ComputeInstCount(const llvm::Module& module) {
  std::array<int64_t, kInstCountNumFeatures> counts{};
  for (const llvm::Function& function : module) {
    if (function.isDeclaration()) continue;
    ++counts[2];
    for (const llvm::BasicBlock& block : function) {
      ++counts[1];
      for (const llvm::Instruction& inst : block) {
        ++counts[0];
        // Opcodes are numbered from 1 (Ret) in Instruction.def order.
        ++counts[2 + inst.getOpcode()];
      }
    }
  }
  return counts;
}

std::vector<float> InstCountNorm(const std::array<int64_t, kInstCountNumFeatures>& counts) {
  std::vector<float> norm(kInstCountNumFeatures - 1);
  const double total = static_cast<double>(std::max<int64_t>(counts[0], 1));
  for (int i = 1; i < kInstCountNumFeatures; ++i) {
    norm[i - 1] = static_cast<float>(static_cast<double>(counts[i]) / total);
  }
  return norm;
}

}  // namespace compiler_gym::observations
