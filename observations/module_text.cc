// PrintModule through an AssemblyAnnotationWriter that records each value's offsets as LLVM
// prints it.
#include "observations/module_text.h"

#include "llvm/IR/AssemblyAnnotationWriter.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormattedStream.h"
#include "llvm/Support/raw_ostream.h"

namespace compiler_gym::observations {
namespace {

// Offsets come from tell(), so the stream can stay buffered.
class SpanRecorder : public llvm::AssemblyAnnotationWriter {
 public:
  explicit SpanRecorder(std::vector<PrintedModule::Span>* spans) : spans_(spans) {}

  void emitInstructionAnnot(const llvm::Instruction*, llvm::formatted_raw_ostream& os) override {
    begin_ = os.tell();
  }

  // Called at the end of the text of every global value and instruction. A global variable is
  // one line, which begins after the previous newline; that is found once the text is complete.
  void printInfoComment(const llvm::Value& value, llvm::formatted_raw_ostream& os) override {
    if (llvm::isa<llvm::Instruction>(value)) {
      spans_->push_back({&value, begin_, os.tell()});
    } else if (llvm::isa<llvm::GlobalVariable>(value)) {
      spans_->push_back({&value, kLineStart, os.tell()});
    }
  }

  static constexpr uint64_t kLineStart = ~uint64_t{0};

 private:
  std::vector<PrintedModule::Span>* spans_;
  uint64_t begin_ = 0;
};

}  // namespace

PrintedModule PrintModule(const llvm::Module& module) {
  PrintedModule printed;
  printed.spans.reserve(module.global_size() + module.getInstructionCount());
  SpanRecorder recorder(&printed.spans);
  {
    llvm::raw_string_ostream os(printed.text);
    // Buffered, the printer's formatted stream writes through in large blocks rather than
    // tracking columns one small write at a time (two thirds of the printing time otherwise).
    os.SetBufferSize(1 << 16);
    module.print(os, &recorder);
  }
  for (PrintedModule::Span& span : printed.spans) {
    if (span.begin != SpanRecorder::kLineStart) continue;
    const size_t newline = printed.text.rfind('\n', span.end == 0 ? 0 : span.end - 1);
    span.begin = newline == std::string::npos ? 0 : newline + 1;
  }
  return printed;
}

}  // namespace compiler_gym::observations
