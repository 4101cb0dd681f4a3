// The text of IR statements (instructions and global variable definitions) for inst2vec's
// normalizer, written straight from the in-memory IR.
//
// Why not LLVM's printer: Module::print tracks the display column of every byte it writes (its
// formatted_raw_ostream decodes UTF-8 and asks Unicode tables for each character's width), which
// is about half of the printing time and cannot be turned off through the public API. Printing
// was three quarters of the inst2vec observation.
//
// The contract is narrower than "the same text as LLVM": the text normalizes to the same
// statement. So the writer leaves out what the normalizer cuts (metadata attachments, attribute
// group references such as #0, comments), prints every unnamed value as %0 or @0 (slot numbers
// all become <%ID> or <@ID>), every floating-point literal as 0.0 and every c"..." string as c"".
// Names, types, integers, flags and punctuation are written as LLVM writes them. Statements in
// syntax it does not write (atomics, inline asm, operand bundles, exception handling, unusual
// calling conventions or address spaces, sections and comdats, ...) go to LLVM's printer, one at
// a time, so every statement is covered. statement_text_test.cc compares the two on the IR
// fixtures, and tests/statement_text_corpus_test.cc on every built-in program at O0, O3 and Oz.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace llvm {
class Module;
class Value;
}  // namespace llvm

namespace compiler_gym::observations {

class StatementText {
 public:
  explicit StatementText(const llvm::Module& module);
  ~StatementText();
  StatementText(const StatementText&) = delete;
  StatementText& operator=(const StatementText&) = delete;

  // Appends the text of `value`, an Instruction of `module` or one of its GlobalVariable
  // definitions, to `out`.
  void Append(const llvm::Value& value, std::string& out);

  // How many statements went to LLVM's printer so far.
  size_t printed_by_llvm() const { return printed_by_llvm_; }

  struct Caches;  // printed types and attribute sets, LLVM's slot tracker (statement_text.cc)

 private:
  const llvm::Module& module_;
  std::unique_ptr<Caches> caches_;
  size_t printed_by_llvm_ = 0;
};

}  // namespace compiler_gym::observations
