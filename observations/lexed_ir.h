// LexedIr: the tokens of a module's IR text as LLVM's own lexer (llvm::LLLexer) reads them.
//
// For each token: its id (the lltok::Kind value in LLVM 19), its kind name (the enum's
// identifier, read from LLVM's LLToken.h at build time so the table cannot drift from the
// lexer), a category, and its value:
//   punctuation  "=", ",", "*", "[", "]", "{", "}", "<", ">", "(", ")", "!", "|", ":", "#", "..."
//   keyword      kw_* tokens (instructions, linkage, attributes...): the keyword, e.g. "add"
//   identifier   %x @x $x !x x: and their numbered forms: the name as written, sigil included
//   literal      integers, floats (decimal text of the value) and "strings" (unescaped)
//   type         the printed type, e.g. "i32", "ptr"
//   debug        DWARF and DI flag tokens (DW_TAG_..., DIFlag...): as written
// Comments and whitespace are not tokens.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"

namespace compiler_gym::observations {

struct LexedIr {
  std::vector<int64_t> token_id;
  std::vector<std::string> token_kind;
  std::vector<std::string> token_category;
  std::vector<std::string> token_value;
};

// Every lltok::Kind name, indexed by the enum value.
const std::vector<std::string>& LexedIrTokenKinds();
// The category of a token kind (one of the names above); "marker" for Eof and Error.
std::string_view LexedIrCategory(int64_t token_id);

// Lexes IR text. kInvalidArgument naming the line when the lexer reports an error.
StatusOr<LexedIr> LexIr(std::string_view ir_text);

// {"token_id": [...], "token_kind": [...], "token_category": [...], "token_value": [...]}.
std::string LexedIrToJson(const LexedIr& lexed);

}  // namespace compiler_gym::observations
