// inst2vec's normalizer (a hand-written scanner over each statement's text), named structs'
// inlined bodies, and the statements and flow graph of a module.
#include "observations/inst2vec.h"

#include <algorithm>
#include <cassert>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "observations/statement_text.h"

namespace compiler_gym::observations {
namespace {

using StructBodies = std::vector<std::pair<std::string, std::string>>;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
// Characters of an unquoted LLVM name after its sigil: [-a-zA-Z$._0-9].
bool IsNameChar(char c) {
  return IsAlpha(c) || IsDigit(c) || c == '-' || c == '$' || c == '.' || c == '_';
}
// Characters of keywords and type names (i32, x86_fp80, zeroinitializer, dereferenceable).
bool IsWordChar(char c) { return IsAlpha(c) || IsDigit(c) || c == '_'; }

// End of a quoted string whose opening quote is at `pos`. LLVM escapes '"' as \22, so the next
// quote closes it.
size_t SkipQuoted(std::string_view s, size_t pos) {
  const size_t end = s.find('"', pos + 1);
  return end == std::string_view::npos ? s.size() : end + 1;
}

// End of the name that follows a sigil (%, @, $) at `pos - 1`: quoted or [-a-zA-Z$._0-9]+.
size_t SkipName(std::string_view s, size_t pos) {
  if (pos < s.size() && s[pos] == '"') return SkipQuoted(s, pos);
  while (pos < s.size() && IsNameChar(s[pos])) ++pos;
  return pos;
}

// End of a bracketed group (open at `pos`), skipping quoted strings inside it.
size_t SkipBalanced(std::string_view s, size_t pos, char open, char close) {
  int depth = 0;
  while (pos < s.size()) {
    const char c = s[pos];
    if (c == '"') {
      pos = SkipQuoted(s, pos);
      continue;
    }
    ++pos;
    if (c == open) ++depth;
    if (c == close && --depth == 0) break;
  }
  return pos;
}

// End of a metadata value starting with '!' at `pos`: !7, !{...}, !"str", !DIExpression(...),
// !name.
size_t SkipMetadata(std::string_view s, size_t pos) {
  ++pos;
  if (pos >= s.size()) return pos;
  if (s[pos] == '{') return SkipBalanced(s, pos, '{', '}');
  if (s[pos] == '"') return SkipQuoted(s, pos);
  while (pos < s.size() && IsNameChar(s[pos])) ++pos;
  if (pos < s.size() && s[pos] == '(') return SkipBalanced(s, pos, '(', ')');
  return pos;
}

void TrimTrailingSpace(std::string& out) {
  while (!out.empty() && out.back() == ' ') out.pop_back();
}

const std::string* FindBody(const StructBodies& bodies, std::string_view name) {
  auto it =
      std::lower_bound(bodies.begin(), bodies.end(), name,
                       [](const std::pair<std::string, std::string>& entry, std::string_view key) {
                         return std::string_view(entry.first) < key;
                       });
  return it != bodies.end() && it->first == name ? &it->second : nullptr;
}

// NormalizeInto's scanner state, which its token handlers below advance: each starts at
// in[i] and consumes one token.
struct Normalizer {
  std::string_view in;
  const StructBodies& bodies;
  std::string& out;
  size_t i = 0;
  // The previous token when it was a keyword (empty otherwise), and whether whitespace followed
  // it: "label %x", "align 4" and "addrspace(1)" are recognised by their keyword.
  std::string_view keyword{};
  bool spaced = false;
  // One entry per open '(': true when it opens addrspace(N), align(N) or alignstack(N), whose
  // integer is type syntax or an alignment (a small closed set) and stays as written. The
  // arguments of other keywords, such as dereferenceable(4100) or range(i32 0, 10), are values.
  llvm::SmallVector<bool, 8> parens{};

  void Emit(std::string_view token) {
    out.append(token);
    keyword = {};
    spaced = false;
  }
};

// A keyword or type name, or a c"..." string.
void NormalizeWord(Normalizer& s) {
  const std::string_view in = s.in;
  const size_t n = in.size();
  size_t& i = s.i;
  if (in[i] == 'c' && i + 1 < n && in[i + 1] == '"') {
    i = SkipQuoted(in, i + 1);
    s.Emit("<STRING>");
    return;
  }
  size_t j = i + 1;
  while (j < n && IsWordChar(in[j])) ++j;
  s.out.append(in.substr(i, j - i));
  s.keyword = in.substr(i, j - i);
  s.spaced = false;
  i = j;
}

// A name after % or @: a global, a label, a named struct (its inlined body) or a local.
void NormalizeName(Normalizer& s) {
  const std::string_view in = s.in;
  size_t& i = s.i;
  const char c = in[i];
  const size_t end = SkipName(in, i + 1);
  if (end == i + 1) {
    s.Emit(in.substr(i, 1));
    ++i;
    return;
  }
  if (c == '@') {
    s.Emit("<@ID>");
  } else if (s.keyword == "label" && s.spaced) {
    s.Emit("<LABEL>");
  } else {
    // A name at the very start is the value that the statement defines, and %<digit> is a
    // numbered value (LLVM quotes type names that start with a digit).
    const bool may_be_type = !s.out.empty() && !IsDigit(in[i + 1]);
    const std::string* body = may_be_type ? FindBody(s.bodies, in.substr(i, end - i)) : nullptr;
    s.Emit(body != nullptr ? std::string_view(*body) : std::string_view("<%ID>"));
  }
  i = end;
}

// A number: a float, a value integer (<INT>), or an integer that is syntax and stays.
void NormalizeNumber(Normalizer& s) {
  const std::string_view in = s.in;
  const size_t n = in.size();
  size_t& i = s.i;
  const char c = in[i];
  size_t j = c == '-' ? i + 1 : i;
  if (in[j] == '0' && j + 1 < n && in[j + 1] == 'x') {
    // Hex floating point: 0x (double), 0xK (x86_fp80), 0xL (fp128), 0xM (ppc_fp128),
    // 0xH (half), 0xR (bfloat). LLVM never prints integers in hex.
    j += 2;
    if (j < n && std::string_view("KLMHR").find(in[j]) != std::string_view::npos) ++j;
    while (j < n && IsHexDigit(in[j])) ++j;
    s.Emit("<FLOAT>");
    i = j;
    return;
  }
  while (j < n && IsDigit(in[j])) ++j;
  bool is_float = false;
  if (j < n && in[j] == '.') {
    is_float = true;
    ++j;
    while (j < n && IsDigit(in[j])) ++j;
  }
  if (j < n && (in[j] == 'e' || in[j] == 'E')) {
    size_t k = j + 1;
    if (k < n && (in[k] == '+' || in[k] == '-')) ++k;
    if (k < n && IsDigit(in[k])) {
      is_float = true;
      j = k;
      while (j < n && IsDigit(in[j])) ++j;
    }
  }
  if (is_float) {
    s.Emit("<FLOAT>");
  } else {
    size_t k = j;
    while (k < n && in[k] == ' ') ++k;
    const bool is_count = k + 1 < n && in[k] == 'x' && IsSpace(in[k + 1]);  // [4 x i8]
    const bool keep = is_count || (!s.parens.empty() && s.parens.back()) ||
                      (s.spaced && (s.keyword == "align" || s.keyword == "cc"));
    s.Emit(keep ? in.substr(i, j - i) : std::string_view("<INT>"));
  }
  i = j;
}

// Any other token: comdats, quoted strings, metadata, attribute groups, comments and
// punctuation (parentheses tracked for NormalizeNumber).
void NormalizeSymbol(Normalizer& s) {
  const std::string_view in = s.in;
  const size_t n = in.size();
  size_t& i = s.i;
  std::string& out = s.out;
  switch (in[i]) {
    case '$': {  // comdat names stay as written
      const size_t end = SkipName(in, i + 1);
      s.Emit(in.substr(i, end - i));
      i = end;
      return;
    }
    case '"': {  // section names, inline asm, string attributes, sync scopes
      const size_t end = SkipQuoted(in, i);
      s.Emit(in.substr(i, end - i));
      i = end;
      return;
    }
    case '!': {
      size_t j = i + 1;
      while (j < n && IsNameChar(in[j])) ++j;
      const bool is_attachment = j > i + 1 && !IsDigit(in[i + 1]) && (j >= n || in[j] != '(');
      TrimTrailingSpace(out);
      if (is_attachment) {
        // ", !dbg !7": the kind, its value and the comma before the kind go.
        if (!out.empty() && out.back() == ',') out.pop_back();
        while (j < n && IsSpace(in[j])) ++j;
        i = j < n && in[j] == '!' ? SkipMetadata(in, j) : j;
      } else {
        i = SkipMetadata(in, i);  // operand: "metadata !7" keeps "metadata"
      }
      s.Emit({});
      return;
    }
    case '#':
      if (i + 1 < n && IsDigit(in[i + 1])) {  // attribute group
        ++i;
        while (i < n && IsDigit(in[i])) ++i;
        TrimTrailingSpace(out);
        s.Emit({});
        return;
      }
      break;
    case ';':  // comment
      while (i < n && in[i] != '\n') ++i;
      TrimTrailingSpace(out);
      s.Emit({});
      return;
    case '(':
      s.parens.push_back(!s.spaced && (s.keyword == "addrspace" || s.keyword == "align" ||
                                       s.keyword == "alignstack"));
      break;
    case ')':
      if (!s.parens.empty()) s.parens.pop_back();
      break;
    default:
      break;
  }
  s.Emit(in.substr(i, 1));
  ++i;
}

// One pass over the printed statement, token by token. Writes into `out` so that callers can
// reuse its buffer.
void NormalizeInto(std::string_view in, const StructBodies& bodies, std::string& out) {
  assert(std::is_sorted(bodies.begin(), bodies.end()));
  out.clear();
  Normalizer s{.in = in, .bodies = bodies, .out = out};
  const size_t n = in.size();
  while (s.i < n) {
    const char c = in[s.i];
    if (IsSpace(c)) {
      while (s.i < n && IsSpace(in[s.i])) ++s.i;
      if (!out.empty() && out.back() != ' ') out += ' ';
      s.spaced = true;
    } else if (IsAlpha(c) || c == '_') {
      NormalizeWord(s);
    } else if (c == '%' || c == '@') {
      NormalizeName(s);
    } else if (IsDigit(c) || (c == '-' && s.i + 1 < n && IsDigit(in[s.i + 1]))) {
      NormalizeNumber(s);
    } else {
      NormalizeSymbol(s);
    }
  }
  TrimTrailingSpace(out);
}

// The body of a struct as LLVM prints it, with nested named structs by name.
std::string RawStructBody(const llvm::StructType& type) {
  if (type.isOpaque()) return "opaque";
  std::string body;
  llvm::raw_string_ostream os(body);
  os << (type.isPacked() ? "<{" : "{");
  for (unsigned i = 0; i < type.getNumElements(); ++i) {
    os << (i == 0 ? " " : ", ");
    type.getElementType(i)->print(os, /*IsForDebug=*/false, /*NoDetails=*/true);
  }
  os << (type.getNumElements() > 0 ? " " : "") << (type.isPacked() ? "}>" : "}");
  return body;
}

// Replaces each named struct in `body` by its expanded body. `stack` holds the structs being
// expanded: a reference to one of them stays a name, which ends any cycle.
std::string ExpandStructBody(std::string_view body, const StructBodies& raw,
                             std::vector<std::string_view>& stack) {
  std::string out;
  size_t i = 0;
  while (i < body.size()) {
    if (body[i] == '"') {  // target("name", ...) types
      const size_t end = SkipQuoted(body, i);
      out.append(body.substr(i, end - i));
      i = end;
      continue;
    }
    if (body[i] != '%') {
      out += body[i++];
      continue;
    }
    const size_t end = SkipName(body, i + 1);
    const std::string_view name = body.substr(i, end - i);
    const std::string* inner = FindBody(raw, name);
    if (inner != nullptr && std::find(stack.begin(), stack.end(), name) == stack.end()) {
      stack.push_back(name);
      out += ExpandStructBody(*inner, raw, stack);
      stack.pop_back();
    } else {
      out.append(name);
    }
    i = end;
  }
  return out;
}

// Debug info is not a statement: LLVM 19 keeps it as records beside the instructions, which
// Instruction::print leaves out, and a module converted back to dbg.* intrinsic calls must give
// the same statements.
bool IsStatement(const llvm::Instruction& inst) { return !llvm::isa<llvm::DbgInfoIntrinsic>(inst); }

const llvm::Instruction& FirstStatement(const llvm::BasicBlock& block) {
  for (const llvm::Instruction& inst : block) {
    if (IsStatement(inst)) return inst;
  }
  return *block.getTerminator();  // unreachable in valid IR: a terminator is a statement
}

// Statements, and the edges when `with_edges`, of a module.
Inst2vecStatementGraph Build(const llvm::Module& module, bool with_edges) {
  Inst2vecStatementGraph graph;
  const StructBodies bodies = Inst2vecStructBodies(module);
  StatementText text(module);
  std::string printed;
  std::string normalized;
  llvm::DenseMap<const llvm::Value*, int32_t> index;
  graph.statements.reserve(module.global_size() + module.getInstructionCount());
  auto add = [&](const llvm::Value& value) {
    if (with_edges) index[&value] = static_cast<int32_t>(graph.statements.size());
    printed.clear();
    text.Append(value, printed);
    NormalizeInto(printed, bodies, normalized);
    graph.statements.push_back(normalized);  // one allocation of the final size
  };
  ForEachInst2vecStatement(module, add);
  if (!with_edges) return graph;

  auto& edges = graph.edges;
  llvm::SmallPtrSet<const llvm::Constant*, 16> seen;
  llvm::SmallVector<const llvm::Constant*, 16> pending;
  for (const llvm::Function& function : module) {
    if (function.isDeclaration()) continue;
    for (const llvm::BasicBlock& block : function) {
      for (const llvm::Instruction& inst : block) {
        if (!IsStatement(inst)) continue;
        const int32_t self = index.lookup(&inst);
        for (const llvm::Value* operand : inst.operand_values()) {
          if (llvm::isa<llvm::Instruction>(operand)) {
            edges.emplace_back(index.lookup(operand), self);
          } else if (const auto* constant = llvm::dyn_cast<llvm::Constant>(operand)) {
            // Globals reach instructions directly or inside constant expressions and
            // aggregates, e.g. getelementptr (i8, ptr @g, i64 4).
            seen.clear();
            pending.assign(1, constant);
            while (!pending.empty()) {
              const llvm::Constant* c = pending.pop_back_val();
              if (!seen.insert(c).second) continue;
              if (llvm::isa<llvm::GlobalVariable>(c)) {
                if (auto it = index.find(c); it != index.end())
                  edges.emplace_back(it->second, self);
              } else if (llvm::isa<llvm::ConstantExpr>(c) ||
                         llvm::isa<llvm::ConstantAggregate>(c)) {
                for (const llvm::Value* inner : c->operand_values()) {
                  pending.push_back(llvm::cast<llvm::Constant>(inner));
                }
              }
            }
          }
        }
        if (!inst.isTerminator()) {
          edges.emplace_back(self, self + 1);  // statements of a block are numbered in a row
          continue;
        }
        for (unsigned s = 0; s < inst.getNumSuccessors(); ++s) {
          edges.emplace_back(self, index.lookup(&FirstStatement(*inst.getSuccessor(s))));
        }
      }
    }
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return graph;
}

}  // namespace

std::string Inst2vecNormalize(std::string_view statement, const StructBodies& struct_bodies) {
  std::string out;
  NormalizeInto(statement, struct_bodies, out);
  return out;
}

StructBodies Inst2vecStructBodies(const llvm::Module& module) {
  StructBodies raw;
  for (const llvm::StructType* type : module.getIdentifiedStructTypes()) {
    // Unnamed identified structs print as %0, %1 ... like numbered values, so a map keyed by
    // that text would rewrite values; they stay <%ID>.
    if (!type->hasName()) continue;
    std::string name;
    llvm::raw_string_ostream os(name);
    type->print(os, /*IsForDebug=*/false, /*NoDetails=*/true);
    raw.emplace_back(std::move(name), RawStructBody(*type));
  }
  std::sort(raw.begin(), raw.end());
  StructBodies expanded;
  expanded.reserve(raw.size());
  std::vector<std::string_view> stack;
  for (const auto& [name, body] : raw) {
    stack.assign(1, name);
    expanded.emplace_back(name, ExpandStructBody(body, raw, stack));
  }
  return expanded;
}

void ForEachInst2vecStatement(const llvm::Module& module,
                              llvm::function_ref<void(const llvm::Value&)> fn) {
  for (const llvm::GlobalVariable& global : module.globals()) {
    if (!global.isDeclaration()) fn(global);
  }
  for (const llvm::Function& function : module) {
    for (const llvm::BasicBlock& block : function) {
      for (const llvm::Instruction& inst : block) {
        if (IsStatement(inst)) fn(inst);
      }
    }
  }
}

std::vector<std::string> Inst2vecPreprocess(const llvm::Module& module) {
  return Build(module, /*with_edges=*/false).statements;
}

Inst2vecStatementGraph BuildInst2vecStatementGraph(const llvm::Module& module) {
  return Build(module, /*with_edges=*/true);
}

}  // namespace compiler_gym::observations
