// LLVM passes that fail on purpose, for tests of failure containment, validation and the
// engine's change detection. Compiled into test builds only (CG_BUILD_TESTS): the library a
// user installs has neither these passes nor a way to name them.
#include "envs/llvm/test_passes.h"

#include <sys/resource.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/ErrorHandling.h"

namespace compiler_gym::llvm_env {

namespace {

// Passes that fail the way a buggy LLVM pass does, to test that a failure stays in its env.
struct FatalErrorPass : llvm::PassInfoMixin<FatalErrorPass> {
  llvm::PreservedAnalyses run(llvm::Module&, llvm::ModuleAnalysisManager&) {
    llvm::report_fatal_error("compiler-gym-test-fatal-error: injected failure");
  }
};
// Miscompiles on purpose, to test that validate() notices: flips the lowest bit of the constant
// operand of the first xor in the module (or else of the first add) that has one.
struct MiscompilePass : llvm::PassInfoMixin<MiscompilePass> {
  llvm::PreservedAnalyses run(llvm::Module& module, llvm::ModuleAnalysisManager&) {
    for (unsigned opcode : {llvm::Instruction::Xor, llvm::Instruction::Add}) {
      for (llvm::Function& function : module) {
        for (llvm::Instruction& inst : llvm::instructions(function)) {
          if (inst.getOpcode() != opcode) continue;
          for (llvm::Use& operand : inst.operands()) {
            auto* constant = llvm::dyn_cast<llvm::ConstantInt>(operand.get());
            if (constant == nullptr) continue;
            operand.set(llvm::ConstantInt::get(constant->getType(), constant->getValue() ^ 1));
            return llvm::PreservedAnalyses::none();
          }
        }
      }
    }
    return llvm::PreservedAnalyses::all();
  }
};
// Changes the IR and claims it changed nothing (a broken contract LLVM's own passes have shown),
// to test that the environment reads changes off the module: drops `nsw` from the first add.
struct SilentChangePass : llvm::PassInfoMixin<SilentChangePass> {
  llvm::PreservedAnalyses run(llvm::Module& module, llvm::ModuleAnalysisManager&) {
    for (llvm::Function& function : module) {
      for (llvm::Instruction& inst : llvm::instructions(function)) {
        if (inst.getOpcode() == llvm::Instruction::Add && inst.hasNoSignedWrap()) {
          inst.setHasNoSignedWrap(false);
          return llvm::PreservedAnalyses::all();
        }
      }
    }
    return llvm::PreservedAnalyses::all();
  }
};
// Never returns, like a pass stuck in a loop: only a worker's deadline ends it.
struct HangPass : llvm::PassInfoMixin<HangPass> {
  llvm::PreservedAnalyses run(llvm::Module&, llvm::ModuleAnalysisManager&) {
    while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
};
// Allocates without bound, like a pass whose memory explodes. Only under an address-space
// limit (a worker's), so that a mistaken use cannot take the machine's memory.
struct AllocatePass : llvm::PassInfoMixin<AllocatePass> {
  llvm::PreservedAnalyses run(llvm::Module&, llvm::ModuleAnalysisManager&) {
    rlimit limit{};
    if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
      llvm::report_fatal_error("compiler-gym-test-alloc: refused without a memory limit");
    }
    std::vector<std::unique_ptr<char[]>> hoard;
    while (true) {
      hoard.emplace_back(new char[64 << 20]);
      std::memset(hoard.back().get(), 1, 64 << 20);
    }
  }
};
struct SegfaultPass : llvm::PassInfoMixin<SegfaultPass> {
  llvm::PreservedAnalyses run(llvm::Module&, llvm::ModuleAnalysisManager&) {
    volatile int* null_pointer = nullptr;
    *null_pointer = 1;  // SIGSEGV, caught by the CrashRecoveryContext around the step.
    return llvm::PreservedAnalyses::none();
  }
};

}  // namespace

// A test pass by its pipeline name (LLVM's parser asks for names it does not know).
bool AddTestPass(llvm::StringRef name, llvm::ModulePassManager& mpm) {
  if (name == "compiler-gym-test-fatal-error") {
    mpm.addPass(FatalErrorPass());
    return true;
  }
  if (name == "compiler-gym-test-miscompile") {
    mpm.addPass(MiscompilePass());
    return true;
  }
  if (name == "compiler-gym-test-silent-change") {
    mpm.addPass(SilentChangePass());
    return true;
  }
  if (name == "compiler-gym-test-segfault") {
    mpm.addPass(SegfaultPass());
    return true;
  }
  if (name == "compiler-gym-test-hang") {
    mpm.addPass(HangPass());
    return true;
  }
  if (name == "compiler-gym-test-alloc") {
    mpm.addPass(AllocatePass());
    return true;
  }
  return false;
}

}  // namespace compiler_gym::llvm_env
