// inst2vec (Ben-Nun et al., NeurIPS 2018): LLVM IR statements normalized so that statements
// differing only in names and literal values share one vocabulary entry.
//
// Statements of a module, in order: each global variable definition, then each instruction of
// each defined function (declarations and labels are not statements). Normalization rules:
//   - local identifiers (%x, %7, %"a b") -> <%ID>; global identifiers (@x, @0) -> <@ID>
//   - branch / switch / indirectbr / callbr targets ("label %bb") -> "label <LABEL>"
//   - integer literals -> <INT>, floating-point literals (decimal, hex 0x..., 0xK/L/M/H/R..)
//     -> <FLOAT>, string literals c"..." -> <STRING>
//   - named struct types (%struct.S) are replaced by their inlined body "{ i32, ptr }";
//     a struct referring to itself (possible only through a pointer in typed-pointer IR) keeps
//     its name at the inner reference
//   - metadata attachments (", !dbg !7", "!tbaa"), attribute groups (#0) and comments are cut
//   - type widths (i32), alignment and address spaces are kept as written
// Implemented with hand-written scanners over the printed statement (std::regex lacks
// lookbehind).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llvm {
class Module;
}

namespace compiler_gym::observations {

// Normalizes one printed statement. `struct_bodies` maps a named struct type ("%struct.S") to
// its inlined body; pass the map from Inst2vecStructBodies(module).
std::string Inst2vecNormalize(std::string_view statement,
                              const std::vector<std::pair<std::string, std::string>>& struct_bodies);

// Named struct types of the module and their inlined bodies, sorted by name.
std::vector<std::pair<std::string, std::string>> Inst2vecStructBodies(const llvm::Module& module);

// The normalized statements of a module, in the order above.
std::vector<std::string> Inst2vecPreprocess(const llvm::Module& module);

// Statements plus the contextual flow graph of inst2vec over them: an edge (a, b) joins
// statement a to a statement b that uses the value a defines (data), or that follows a in
// control flow (the next instruction of the block, or the first instruction of a successor
// block). Global variable statements join the instructions that use them. Edges are sorted
// and unique. The trainer (compiler_gym.bin.train_inst2vec) draws skip-gram contexts from it.
struct Inst2vecStatementGraph {
  std::vector<std::string> statements;
  std::vector<std::pair<int32_t, int32_t>> edges;
};
Inst2vecStatementGraph BuildInst2vecStatementGraph(const llvm::Module& module);

}  // namespace compiler_gym::observations
