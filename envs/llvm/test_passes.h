// Test builds only (CG_BUILD_TESTS, which defines CG_TEST_HOOKS): LLVM passes that fail the
// way a buggy pass does, by pipeline name, for LlvmEnv::StepPipelineForTesting and the
// "testing.next_step_pipeline" parameter:
//   compiler-gym-test-fatal-error  report_fatal_error
//   compiler-gym-test-segfault     a null dereference
//   compiler-gym-test-miscompile   flips a bit of a constant (validate() must notice)
//   compiler-gym-test-silent-change  changes the IR and claims it preserved everything
//   compiler-gym-test-hang         never returns (only a worker's deadline ends it)
//   compiler-gym-test-alloc        allocates without bound (under a memory limit only)
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/PassManager.h"

namespace compiler_gym::llvm_env {

// Adds the test pass `name` to `mpm` and returns true, or returns false for another name (a
// PassBuilder pipeline-parsing callback).
bool AddTestPass(llvm::StringRef name, llvm::ModulePassManager& mpm);

}  // namespace compiler_gym::llvm_env
