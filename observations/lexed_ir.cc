// LexIr: LLVM's LLLexer run over IR text, each token given its kind name (from the generated
// lltoken_kinds.inc), category and value, and the JSON form of the result.
#include "observations/lexed_ir.h"

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>

#include "llvm/ADT/SmallString.h"
#include "llvm/AsmParser/LLLexer.h"
#include "llvm/AsmParser/LLToken.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Type.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace compiler_gym::observations {
namespace {

constexpr const char* kKindNames[] = {
#include "lltoken_kinds.inc"
};
static_assert(std::size(kKindNames) == llvm::lltok::APSInt + 1,
              "lltoken_kinds.inc does not match llvm::lltok::Kind");

// The spelling of the tokens that carry no value.
const char* Punctuation(llvm::lltok::Kind kind) {
  using namespace llvm::lltok;
  switch (kind) {
    case dotdotdot:
      return "...";
    case equal:
      return "=";
    case comma:
      return ",";
    case star:
      return "*";
    case lsquare:
      return "[";
    case rsquare:
      return "]";
    case lbrace:
      return "{";
    case rbrace:
      return "}";
    case less:
      return "<";
    case greater:
      return ">";
    case lparen:
      return "(";
    case rparen:
      return ")";
    case exclaim:
      return "!";
    case bar:
      return "|";
    case colon:
      return ":";
    case hash:
      return "#";
    default:
      return nullptr;
  }
}

std::string Value(const llvm::LLLexer& lexer, llvm::lltok::Kind kind) {
  using namespace llvm::lltok;
  if (const char* p = Punctuation(kind)) return p;
  const std::string_view name = kKindNames[kind];
  if (name.starts_with("kw_")) return std::string(name.substr(3));
  switch (kind) {
    case LabelID:
      return std::to_string(lexer.getUIntVal()) + ":";
    case GlobalID:
      return "@" + std::to_string(lexer.getUIntVal());
    case LocalVarID:
      return "%" + std::to_string(lexer.getUIntVal());
    case AttrGrpID:
      return "#" + std::to_string(lexer.getUIntVal());
    case SummaryID:
      return "^" + std::to_string(lexer.getUIntVal());
    case LabelStr:
      return lexer.getStrVal() + ":";
    case GlobalVar:
      return "@" + lexer.getStrVal();
    case ComdatVar:
      return "$" + lexer.getStrVal();
    case LocalVar:
      return "%" + lexer.getStrVal();
    case MetadataVar:
      return "!" + lexer.getStrVal();
    case Type: {
      std::string out;
      llvm::raw_string_ostream os(out);
      lexer.getTyVal()->print(os);
      return out;
    }
    case APSInt: {
      llvm::SmallString<32> text;
      lexer.getAPSIntVal().toString(text, 10);
      return std::string(text.str());
    }
    case APFloat: {
      llvm::SmallString<32> text;
      lexer.getAPFloatVal().toString(text);
      return std::string(text.str());
    }
    default:
      return lexer.getStrVal();  // strings and debug-info keywords
  }
}

}  // namespace

const std::vector<std::string>& LexedIrTokenKinds() {
  static const std::vector<std::string> names(std::begin(kKindNames), std::end(kKindNames));
  return names;
}

std::string_view LexedIrCategory(int64_t token_id) {
  using namespace llvm::lltok;
  if (token_id < 0 || token_id > APSInt) return "marker";
  const auto kind = static_cast<Kind>(token_id);
  if (kind == Eof || kind == Error) return "marker";
  if (Punctuation(kind) != nullptr) return "punctuation";
  if (std::string_view(kKindNames[kind]).starts_with("kw_")) return "keyword";
  switch (kind) {
    case LabelID:
    case GlobalID:
    case LocalVarID:
    case AttrGrpID:
    case SummaryID:
    case LabelStr:
    case GlobalVar:
    case ComdatVar:
    case LocalVar:
    case MetadataVar:
      return "identifier";
    case StringConstant:
    case APFloat:
    case APSInt:
      return "literal";
    case Type:
      return "type";
    default:
      return "debug";
  }
}

StatusOr<LexedIr> LexIr(std::string_view ir_text) {
  // The lexer reads to a NUL terminator, which std::string guarantees.
  const std::string buffer(ir_text);
  llvm::LLVMContext context;
  llvm::SourceMgr source_manager;
  source_manager.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(buffer, "ir", /*RequiresNullTerminator=*/true),
      llvm::SMLoc());
  llvm::SMDiagnostic error;
  llvm::LLLexer lexer(buffer, source_manager, error, context);
  LexedIr out;
  for (llvm::lltok::Kind kind = lexer.Lex(); kind != llvm::lltok::Eof; kind = lexer.Lex()) {
    if (kind == llvm::lltok::Error) {
      const char* at = lexer.getLoc().getPointer();
      const auto line = 1 + std::count(buffer.data(), at, '\n');
      return InvalidArgument("LexedIr: the IR does not lex at line " + std::to_string(line) +
                             (error.getMessage().empty() ? "" : ": " + error.getMessage().str()));
    }
    out.token_id.push_back(kind);
    out.token_kind.push_back(kKindNames[kind]);
    out.token_category.emplace_back(LexedIrCategory(kind));
    out.token_value.push_back(Value(lexer, kind));
  }
  return out;
}

std::string LexedIrToJson(const LexedIr& lexed) {
  nlohmann::json j = {{"token_id", lexed.token_id},
                      {"token_kind", lexed.token_kind},
                      {"token_category", lexed.token_category},
                      {"token_value", lexed.token_value}};
  // Token values may hold arbitrary bytes of string constants; replace invalid UTF-8.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace compiler_gym::observations
