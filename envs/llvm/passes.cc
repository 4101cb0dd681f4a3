#include "envs/llvm/passes.h"

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

Status RunPipeline(llvm::Module& module, llvm::TargetMachine* tm, const std::string& pipeline) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  if (auto err = pb.parsePassPipeline(mpm, pipeline)) {
    return InvalidArgument("invalid pipeline '" + pipeline +
                           "': " + llvm::toString(std::move(err)));
  }
  mpm.run(module, mam);
  return Status::Ok();
}

}  // namespace compiler_gym::llvm_env
