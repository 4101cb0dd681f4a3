// The PassesAll action table: one row per action, generated from `opt-19 --print-passes` by
// tools/gen_pass_table.py into passes.def (see PASSES.md for provenance and the mapping from
// CompilerGym's flags).
#pragma once

#include <string>
#include <vector>

#include "engine/status.h"

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace compiler_gym::llvm_env {

enum class PassLevel { Module, Cgscc, Function, Loop };

struct PassRow {
  std::string flag;       // the action name, CompilerGym's flag, e.g. "-functionattrs"
  std::string pipeline;   // module-level new-PM pipeline text, e.g. "cgscc(function-attrs)"
  std::string llvm_name;  // the LLVM 19 pass name
  PassLevel level;
  // Run in an opt-19 process of its own on the module's bitcode (RunPipelineInOwnProcess), not
  // on the module in memory: a pass whose result follows the addresses of the process's heap
  // (-newgvn, PASSES.md) gives one result there for one module, in any env, thread or process.
  bool own_process = false;
};

// Whether the LLVM pass `llvm_name` runs in a process of its own (PassRow::own_process).
bool RunsInOwnProcess(const std::string& llvm_name);

const std::vector<PassRow>& PassTable();

// The PassesParameterized action table: PassesAll's passes as pipeline elements, their option
// variants from LLVM 19's pass registry, and default<O1..Oz>; generated into pass_params.def
// by tools/gen_param_table.py.
const std::vector<PassRow>& ParameterizedPassTable();

// PassesAll followed by the passes with a confirmed miscompile (PASSES.md, "Miscompile
// hunts"), which the default spaces leave out: the opt-in space PassesAllUnsound.
const std::vector<PassRow>& UnsoundPassTable();

// The family's action spaces, in index order; 1 is the one with pipeline actions.
struct ActionSpaceRow {
  const char* name;
  const char* description;
  const std::vector<PassRow>& (*table)();
  bool opt_in = false;  // ActionSpaceSpec::opt_in
};
const std::vector<ActionSpaceRow>& ActionSpaceTable();

// The table of an action space of the family (an index of ActionSpaceTable()).
const std::vector<PassRow>& ActionTable(int action_space);

// Whether a pipeline may be an action of PassesParameterized beyond its table (a pipeline
// action, e.g. "function(sroa,early-cse<memssa>)"): it parses, nests only the adaptors module,
// cgscc, function, loop and loop-mssa, and each pass in it is one of the table's with options
// that rows of the table give that pass. InvalidArgument names the bad part.
Status CheckPipelineAction(const std::string& pipeline);

// What RunPipelineInOwnProcess gives back: the module after the pipeline, as bitcode without
// use-list order (the order a parse makes), and the CPU time of the process that ran it.
struct OwnProcessResult {
  std::string bitcode;
  double cpu_seconds = 0;
};

// Runs `pipeline` on the module `bitcode` (written with its use-list order) in a new opt-19
// process (OptPath()), sandboxed with `timeout_seconds`. A fresh process allocates the same
// way for the same input, so a pass whose result follows heap addresses gives one module for
// one input wherever it is called from. kCrash when opt-19 dies of a signal,
// kDeadlineExceeded when it runs out of time, kInternal when it reports an error.
StatusOr<OwnProcessResult> RunPipelineInOwnProcess(const std::string& bitcode,
                                                   const std::string& pipeline,
                                                   double timeout_seconds);

// Runs a textual module pipeline (e.g. "default<Oz>") with fresh analysis managers.
Status RunPipeline(llvm::Module& module, llvm::TargetMachine* tm, const std::string& pipeline);

}  // namespace compiler_gym::llvm_env
