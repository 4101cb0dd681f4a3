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
};

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

// Runs a textual module pipeline (e.g. "default<Oz>") with fresh analysis managers.
Status RunPipeline(llvm::Module& module, llvm::TargetMachine* tm, const std::string& pipeline);

}  // namespace compiler_gym::llvm_env
