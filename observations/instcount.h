// InstCount: 70 int64 features of an LLVM module, CompilerGym's "InstCount" space.
//
// Features, in order: TotalInsts, TotalBlocks, TotalFuncs, then one count per opcode in LLVM's
// Instruction.def order (Ret ... Freeze). Defined functions only (declarations have no body).
// Invariant: the 67 opcode counts sum to TotalInsts.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace compiler_gym::observations {

inline constexpr int kInstCountNumFeatures = 70;
inline constexpr int kInstCountNumOpcodes = 67;

// Feature names without the "Count" suffix: "TotalInsts", ..., "Ret", ..., "Freeze".
const std::vector<std::string>& InstCountFeatureNames();

std::array<int64_t, kInstCountNumFeatures> ComputeInstCount(const llvm::Module& module);

// InstCount[1:] / max(InstCount[0], 1): 69 densities.
std::vector<float> InstCountNorm(const std::array<int64_t, kInstCountNumFeatures>& counts);

}  // namespace compiler_gym::observations
