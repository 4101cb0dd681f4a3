// PrintModule: a module printed once by LLVM, with where each global variable's and each
// instruction's text lies in it, so that ProGraML's node texts (and the tests' reference
// statements) cost one print of the module rather than one per value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class Module;
class Value;
}  // namespace llvm

namespace compiler_gym::observations {

// A module printed once by LLVM's assembly writer, with where the text of each global variable
// and each instruction lies in it. One print of the whole module is linear and several times
// cheaper than printing values one by one (each Value::print sets up a new assembly writer,
// even with a shared slot tracker), and gives the same text with the same slot numbers.
struct PrintedModule {
  struct Span {
    const llvm::Value* value;  // a GlobalVariable or an Instruction
    uint64_t begin;
    uint64_t end;
  };

  std::string text;
  std::vector<Span> spans;  // in printing order: globals, then instructions in module order

  // The text of a span as Value::print gives it (instructions keep their two-space indent).
  std::string_view TextOf(const Span& span) const {
    return std::string_view(text).substr(span.begin, span.end - span.begin);
  }
};

PrintedModule PrintModule(const llvm::Module& module);

}  // namespace compiler_gym::observations
