// inst2vec (Ben-Nun et al., NeurIPS 2018): LLVM IR statements normalized so that statements
// differing only in names and literal values share one vocabulary entry.
//
// Statements of a module, in order: each global variable definition (module order; external
// declarations are not statements), then each instruction of each defined function
// (declarations, labels and debug info are not statements: LLVM 19 keeps debug info as records
// that Instruction::print leaves out, and a module holding dbg.* intrinsic calls instead gives
// the same statements). Each is written in LLVM's assembly syntax (statement_text.h: straight
// from the IR, or by LLVM's printer for rare forms; either gives what Module::print gives, as
// far as the rules below can tell), then normalized. Normalization rules:
//   - local identifiers (%x, %7, %"a b") -> <%ID>, including the blocks of phi incoming pairs;
//     global identifiers (@x, @0, @"a b", intrinsics such as @llvm.memcpy.p0.p0.i64) -> <@ID>
//   - branch / switch / indirectbr / invoke / callbr targets ("label %bb") -> "label <LABEL>"
//   - integer literals in value positions (operands, initializers, gep and extractvalue
//     indices, switch cases), negative ones included -> <INT>; floating-point literals
//     (decimal with '.' or exponent, hex 0x..., 0xK/L/M/H/R..) -> <FLOAT>; string literals
//     c"..." -> <STRING>
//   - kept as written: type syntax, array and vector element counts included ("[10 x i8]",
//     "<vscale x 4 x i32>", "ptr addrspace(1)"), so a statement's types stay exact; alignments
//     ("align 4", "align(8)", "alignstack(16)": a small closed set) and "cc N"; true, false,
//     null, undef, poison, zeroinitializer; quoted strings other than c"..." (section names,
//     inline asm, sync scopes); comdat names ($c). Integer arguments of other attributes are
//     values: "dereferenceable(<INT>)", "range(i32 <INT>, <INT>)"
//   - named struct types (%struct.S) are replaced by their inlined body "{ i32, ptr }", nested
//     named structs inlined too; at a cycle (impossible in LLVM 19 IR, where pointers are
//     opaque, but representable in memory) the inner reference keeps its name. A name at the
//     very start of a statement is the value it defines, never a type. Unnamed identified
//     structs print as %0, like numbered values, so they are not inlined and become <%ID>.
//     Opaque structs have the body "opaque".
//   - cut: metadata attachments (", !dbg !7", ", !tbaa !5"), metadata operands (!7, !{...},
//     !"s", !DIExpression(...); "metadata !7" leaves "metadata"), attribute groups (#0) and
//     comments; whitespace runs (a switch prints over several lines) become one space
// Implemented with a hand-written scanner over the printed statement (std::regex lacks
// lookbehind and is slow); normalizing costs a fraction of LLVM's printing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llvm/ADT/STLFunctionalExtras.h"

namespace llvm {
class Module;
class Value;
}  // namespace llvm

namespace compiler_gym::observations {

// Normalizes one printed statement. `struct_bodies` maps a named struct type, as printed
// ("%struct.S", %"class.a b"), to its inlined body, sorted by name; pass the map from
// Inst2vecStructBodies(module).
std::string Inst2vecNormalize(
    std::string_view statement,
    const std::vector<std::pair<std::string, std::string>>& struct_bodies);

// Named struct types of the module and their inlined bodies, sorted by name.
std::vector<std::pair<std::string, std::string>> Inst2vecStructBodies(const llvm::Module& module);

// The normalized statements of a module, in the order above.
std::vector<std::string> Inst2vecPreprocess(const llvm::Module& module);

// Calls `fn` with the value of each statement (a GlobalVariable or an Instruction), in the
// order above.
void ForEachInst2vecStatement(const llvm::Module& module,
                              llvm::function_ref<void(const llvm::Value&)> fn);

// Statements plus the contextual flow graph of inst2vec over them: an edge (a, b) joins
// statement a to a statement b that uses the value a defines (data), or that follows a in
// control flow (the next instruction of the block, or the first instruction of a successor
// block). Global variable statements join the instructions that use them, directly or inside
// constant expressions. Edges are sorted and unique; a phi that uses itself has a self-edge. The
// trainer (compiler_gym.bin.train_inst2vec) draws skip-gram contexts from it.
struct Inst2vecStatementGraph {
  std::vector<std::string> statements;
  std::vector<std::pair<int32_t, int32_t>> edges;
};
Inst2vecStatementGraph BuildInst2vecStatementGraph(const llvm::Module& module);

}  // namespace compiler_gym::observations
