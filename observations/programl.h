// ProGraML: a program as a directed multigraph of instructions, variables and constants with
// control, data and call edges (Cummins et al., ICML 2021), built directly from an llvm::Module.
//
// Nodes: node 0 is the root "[external]" (an INSTRUCTION). Instruction nodes have the opcode
// name as `text` and the printed instruction as `full_text`; variable nodes (instruction
// results, function arguments, global variables) and constant nodes have the printed type as
// `text` and the printed value as `full_text`. Edges carry a flow and a position: the operand
// index for data edges, the successor index for control edges out of a terminator.
//
// The builder visits the module in its own order with ordered containers, so one module always
// gives the same node and edge order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace compiler_gym::observations {

enum ProgramlNodeType : int32_t {
  kProgramlInstruction = 0,
  kProgramlVariable = 1,
  kProgramlConstant = 2
};
enum ProgramlFlow : int32_t { kProgramlControl = 0, kProgramlData = 1, kProgramlCall = 2 };
inline constexpr int kProgramlNumFlows = 3;

struct ProgramlGraph {
  // Nodes, as parallel arrays.
  std::vector<int32_t> node_type;
  std::vector<std::string> node_text;
  std::vector<std::string> node_full_text;
  // Index into `functions`; -1 for the root, globals and constants.
  std::vector<int32_t> node_function;
  std::vector<int32_t> node_block;  // block index within the function; -1 where none
  // Edges, as parallel arrays.
  std::vector<int32_t> edge_source;
  std::vector<int32_t> edge_target;
  std::vector<int32_t> edge_flow;
  std::vector<int32_t> edge_position;
  // Defined functions in module order (declarations have no nodes).
  std::vector<std::string> functions;

  int64_t num_nodes() const { return static_cast<int64_t>(node_type.size()); }
  int64_t num_edges() const { return static_cast<int64_t>(edge_source.size()); }
};

ProgramlGraph BuildProgramlGraph(const llvm::Module& module);

// networkx node-link JSON: {"directed": true, "multigraph": true, "graph": {...},
// "nodes": [{"id", "type", "text", "full_text", "function", "block"}...],
// "links": [{"source", "target", "key", "flow", "position"}...]}.
std::string ProgramlToNodeLinkJson(const ProgramlGraph& graph);

}  // namespace compiler_gym::observations
