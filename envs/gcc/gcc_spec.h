// GccSpec: what a GCC binary lets us tune, read from the compiler itself.
//
// `gcc -Q --help=optimizers` and `gcc -Q --help=params` list every optimization option and
// parameter with its value at -O0. They are parsed into typed options: the -O level, on/off
// flags, enumerated values and integer ranges. A state of the environment is one choice per
// option: -1 leaves the option off the command line, i >= 0 picks its i-th value.
//
//   ASSIGN_OR_RETURN(std::shared_ptr<const GccSpec> spec, LoadGccSpec("gcc"));
//   std::string arg = spec->options[3].Render(1);   // e.g. "-fno-branch-count-reg"
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"

namespace compiler_gym::gcc_env {

enum class OptionKind {
  kOLevel,  // -O0 -O1 -O2 -O3 -Ofast -Og -Os -Oz (those the compiler lists)
  kFlag,    // -fNAME / -fno-NAME
  kEnum,    // -fNAME=a|b|c or --param=NAME=a|b|c
  kInt,     // -fNAME=<min,max> or --param=NAME=<min,max>; no stated range = [0, INT_MAX]
};

const char* OptionKindName(OptionKind kind);

struct GccOption {
  OptionKind kind = OptionKind::kFlag;
  // The flag as the command line spells it, without a value: "-O", "-ftree-pre",
  // "-fvect-cost-model", "--param=max-inline-insns-auto".
  std::string name;
  std::vector<std::string> values;  // kOLevel and kEnum: the value spellings ("2", "cheap")
  int64_t min = 0, max = 0;         // kInt: the inclusive range
  bool is_param = false;            // a --param
  std::string default_value;        // what -Q reports at -O0 ("[enabled]", "100", "cheap"), may be
                                    // empty

  // Number of values a choice can pick: choices are -1 .. NumValues() - 1.
  int64_t NumValues() const;
  // The command-line argument for a choice in [0, NumValues()); "" for -1.
  std::string Render(int64_t choice) const;
  // The choice closest to the -O0 default (for integers without a choice yet), or 0.
  int64_t DefaultChoice() const;
  // The choice whose Render() is `arg`, or -1 when `arg` is not this option's.
  int64_t ParseArg(std::string_view arg) const;
};

struct GccSpec {
  std::string gcc;      // the resolved executable
  std::string version;  // first line of `gcc --version`
  std::vector<GccOption> options;
};

// Parses the two help outputs. kInvalidArgument when they do not look like GCC's (no options
// section), so that a binary that is not GCC is told apart.
StatusOr<GccSpec> ParseGccSpec(std::string_view optimizers_help, std::string_view params_help);

// The spec of `gcc_bin` (a path, or a command found on $PATH), read by running it, once per
// binary and process. kNotFound when it does not exist; kInvalidArgument when it is not a GCC
// (its output does not parse) or older than GCC 5.
StatusOr<std::shared_ptr<const GccSpec>> LoadGccSpec(const std::string& gcc_bin);

// A command on $PATH (or a path with a slash) as an absolute executable path, its links kept;
// kNotFound else.
StatusOr<std::string> ResolveExecutable(const std::string& command);

}  // namespace compiler_gym::gcc_env
