// PassTable(), UnsoundPassTable() and ParameterizedPassTable(), expanded from passes.def and
// pass_params.def; the action spaces; RunPipeline, which runs a pipeline under crash recovery
// with analysis managers of its own.
#include "envs/llvm/passes.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "engine/sandbox.h"
#include "envs/llvm/module_util.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"

namespace compiler_gym::llvm_env {

bool RunsInOwnProcess(const std::string& llvm_name) {
  // NewGVN orders operands of equal rank (two constants, or values it numbered none) by their
  // addresses (NewGVN::shouldSwapOperands), so in a long-lived process one module gives one of
  // several results (PASSES.md, "-newgvn").
  return llvm_name == "newgvn";
}

const std::vector<PassRow>& PassTable() {
  static const std::vector<PassRow> table = {
#define COMPILER_GYM_LLVM_PASS(flag, pipeline, llvm_name, level) \
  {flag, pipeline, llvm_name, PassLevel::level, RunsInOwnProcess(llvm_name)},
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

const std::vector<PassRow>& UnsoundPassTable() {
  static const std::vector<PassRow> table = {
#define COMPILER_GYM_LLVM_PASS(flag, pipeline, llvm_name, level) \
  {flag, pipeline, llvm_name, PassLevel::level, RunsInOwnProcess(llvm_name)},
#define COMPILER_GYM_LLVM_MISCOMPILING_PASS(flag, pipeline, llvm_name, level) \
  {flag, pipeline, llvm_name, PassLevel::level, RunsInOwnProcess(llvm_name)},
#include "envs/llvm/passes.def"
  };
  return table;
}

const std::vector<ActionSpaceRow>& ActionSpaceTable() {
  static const std::vector<ActionSpaceRow> spaces = {
      {"PassesAll", "One LLVM 19 pass per action (see PASSES.md).", PassTable},
      {"PassesParameterized",
       "LLVM 19 passes with the options each accepts, and default<O1..Oz>; one pipeline "
       "element per action (see PASSES.md).",
       ParameterizedPassTable},
      {"PassesAllUnsound",
       "PassesAll, then the passes with a confirmed miscompile, which the other spaces leave "
       "out (an opt-in; see PASSES.md).",
       UnsoundPassTable, /*opt_in=*/true},
  };
  return spaces;
}

const std::vector<PassRow>& ActionTable(int action_space) {
  return ActionSpaceTable().at(action_space).table();
}

namespace {

// "a;b=2;c" -> {"a", "b=2", "c"}: a pass element's options.
std::vector<std::string> SplitOptions(const std::string& list) {
  std::vector<std::string> options;
  for (size_t from = 0; from <= list.size();) {
    const size_t end = std::min(list.find(';', from), list.size());
    if (end > from) options.push_back(list.substr(from, end - from));
    from = end + 1;
  }
  return options;
}

// The options each pass of the PassesParameterized table is given by some row.
const std::map<std::string, std::set<std::string>>& TableOptions() {
  static const auto options = [] {
    std::map<std::string, std::set<std::string>> out;
    for (const PassRow& row : ParameterizedPassTable()) {
      // The row's pass element: its pipeline without the adaptors around it.
      std::string element = row.pipeline;
      while (element.back() == ')') element.pop_back();
      const size_t open = element.rfind('(');
      if (open != std::string::npos) element = element.substr(open + 1);
      auto& known = out[row.llvm_name];
      const size_t angle = element.find('<');
      if (angle == std::string::npos) continue;
      for (std::string& option :
           SplitOptions(element.substr(angle + 1, element.size() - angle - 2))) {
        known.insert(std::move(option));
      }
    }
    return out;
  }();
  return options;
}

// A recursive-descent reading of pipeline text: element (',' element)*, where an element is
// name ['<' options '>'] ['(' elements ')'].
class PipelineChecker {
 public:
  explicit PipelineChecker(const std::string& text) : text_(text) {}

  Status Check() {
    RETURN_IF_ERROR(Elements(0));
    if (pos_ != text_.size()) return Error("unexpected '" + std::string(1, text_[pos_]) + "'");
    return Status::Ok();
  }

 private:
  Status Elements(int depth) {
    while (true) {
      RETURN_IF_ERROR(Element(depth));
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      return Status::Ok();
    }
  }

  Status Element(int depth) {
    const size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                   text_[pos_] == '-' || text_[pos_] == '_')) {
      ++pos_;
    }
    const std::string name = text_.substr(start, pos_ - start);
    if (name.empty()) return Error("expected a pass name");
    std::vector<std::string> options;
    if (pos_ < text_.size() && text_[pos_] == '<') {
      const size_t close = text_.find('>', pos_);
      if (close == std::string::npos) return Error("'<' of '" + name + "' is not closed");
      options = SplitOptions(text_.substr(pos_ + 1, close - pos_ - 1));
      pos_ = close + 1;
    }
    const size_t end = pos_;
    static const std::set<std::string> kAdaptors = {"module", "cgscc", "function", "loop",
                                                    "loop-mssa"};
    if (pos_ < text_.size() && text_[pos_] == '(') {
      if (!kAdaptors.contains(name) || !options.empty()) {
        pos_ = start;
        return Error("'" + name + "' does not nest passes here (module, cgscc, function, " +
                     "loop, loop-mssa do)");
      }
      if (depth >= 8) return Error("nested too deep");
      ++pos_;
      RETURN_IF_ERROR(Elements(depth + 1));
      if (pos_ >= text_.size() || text_[pos_] != ')') return Error("expected ')'");
      ++pos_;
      return Status::Ok();
    }
    const auto& table = TableOptions();
    const auto pass = table.find(name);
    pos_ = start;  // errors name where the element starts
    if (pass == table.end()) return Error("'" + name + "' is not a pass of the table");
    for (const std::string& option : options) {
      if (!pass->second.contains(option)) {
        return Error("option '" + option + "' of '" + name + "' is not one the table gives it");
      }
    }
    pos_ = end;
    return Status::Ok();
  }

  Status Error(const std::string& what) const {
    return InvalidArgument("pipeline '" + text_ + "' at " + std::to_string(pos_) + ": " + what);
  }

  const std::string& text_;
  size_t pos_ = 0;
};

}  // namespace

Status CheckPipelineAction(const std::string& pipeline) {
  RETURN_IF_ERROR(PipelineChecker(pipeline).Check());
  llvm::PassBuilder pb;
  llvm::ModulePassManager mpm;
  if (auto err = pb.parsePassPipeline(mpm, pipeline)) {
    return InvalidArgument("pipeline '" + pipeline + "': " + llvm::toString(std::move(err)));
  }
  return Status::Ok();
}

StatusOr<OwnProcessResult> RunPipelineInOwnProcess(const std::string& bitcode,
                                                   const std::string& pipeline,
                                                   double timeout_seconds) {
  ASSIGN_OR_RETURN(const std::string opt, OptPath());
  ASSIGN_OR_RETURN(const std::string dir, MakeTempDir("compiler_gym-opt"));
  const ScopedPath remove(dir);
  RETURN_IF_ERROR(WriteFile(dir + "/in.bc", bitcode));
  // The output without use-list order: a fresh process orders use lists by where it
  // allocated, which address-space randomization moves; a parse of the output orders them
  // one way.
  const SandboxLimits limits{.timeout_seconds = timeout_seconds};
  ASSIGN_OR_RETURN(ProcessResult r,
                   RunSandboxed({opt, "-passes=" + pipeline, "-preserve-bc-uselistorder=false",
                                 "in.bc", "-o", "out.bc"},
                                limits, dir));
  if (r.timed_out) return DeadlineExceeded("opt-19 -passes=" + pipeline + " " + r.Describe(limits));
  if (r.signal != 0) return Crash("opt-19 -passes=" + pipeline + " " + r.Describe(limits));
  if (!r.ok()) {
    return Internal("opt-19 -passes=" + pipeline + " " + r.Describe(limits) + ": " +
                    r.stderr_text.substr(0, 2000));
  }
  ASSIGN_OR_RETURN(std::string out, ReadFile(dir + "/out.bc"));
  return OwnProcessResult{std::move(out), r.cpu_seconds};
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
