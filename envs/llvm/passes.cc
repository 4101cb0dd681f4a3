// PassTable() and ParameterizedPassTable(), expanded from passes.def and pass_params.def, and
// RunPipeline, which runs a pipeline under crash recovery with analysis managers of its own.
#include "envs/llvm/passes.h"

#include "envs/llvm/module_util.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"

namespace compiler_gym::llvm_env {

const std::vector<PassRow>& PassTable() {
  static const std::vector<PassRow> table = {
#define COMPILER_GYM_LLVM_PASS(flag, pipeline, llvm_name, level) \
  {flag, pipeline, llvm_name, PassLevel::level},
#include "envs/llvm/passes.def"
  };
  return table;
}

const std::vector<PassRow>& ParameterizedPassTable() {
  static const std::vector<PassRow> table = {
#define COMPILER_GYM_LLVM_PASS(name, pipeline, llvm_name, level) \
  {name, pipeline, llvm_name, PassLevel::level},
#include "envs/llvm/pass_params.def"
  };
  return table;
}

const std::vector<PassRow>& ActionTable(int action_space) {
  return action_space == 1 ? ParameterizedPassTable() : PassTable();
}

Status RunPipeline(llvm::Module& module, llvm::TargetMachine* tm, const std::string& pipeline) {
  // On the heap: after a crash they point into a broken module and are freed crash-contained.
  auto lam = std::make_unique<llvm::LoopAnalysisManager>();
  auto fam = std::make_unique<llvm::FunctionAnalysisManager>();
  auto cgam = std::make_unique<llvm::CGSCCAnalysisManager>();
  auto mam = std::make_unique<llvm::ModuleAnalysisManager>();
  llvm::PassBuilder pb(tm);
  pb.registerModuleAnalyses(*mam);
  pb.registerCGSCCAnalyses(*cgam);
  pb.registerFunctionAnalyses(*fam);
  pb.registerLoopAnalyses(*lam);
  pb.crossRegisterProxies(*lam, *fam, *cgam, *mam);
  auto mpm = std::make_unique<llvm::ModulePassManager>();
  if (auto err = pb.parsePassPipeline(*mpm, pipeline)) {
    return InvalidArgument("invalid pipeline '" + pipeline +
                           "': " + llvm::toString(std::move(err)));
  }
  if (!RunCrashContained([&] { mpm->run(module, *mam); })) {
    FreeAfterCrash(mpm, mam, cgam, fam, lam);  // outermost first, as a scope destroys them
    return Internal("LLVM crashed running '" + pipeline + "'");
  }
  return Status::Ok();
}

}  // namespace compiler_gym::llvm_env
