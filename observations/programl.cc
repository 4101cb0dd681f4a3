// The ProGraML builder (two passes over the module: nodes with fixed places, then edges in
// traversal order) and the graph's node-link JSON.
#include "observations/programl.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <utility>

#include "engine/status.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ModuleSlotTracker.h"
#include "llvm/Support/raw_ostream.h"
#include "observations/module_text.h"

namespace compiler_gym::observations {
namespace {

constexpr int32_t kRoot = 0;
constexpr int32_t kNone = -1;

// True if `type` mentions an identified struct that has no name. Type::print has no module to
// number such structs with and prints their address instead, which would make the text differ
// from run to run.
bool HasUnnamedStruct(const llvm::Type* type) {
  if (const auto* st = llvm::dyn_cast<llvm::StructType>(type)) {
    if (!st->isLiteral() && !st->hasName()) return true;
  }
  for (const llvm::Type* sub : type->subtypes()) {
    if (HasUnnamedStruct(sub)) return true;
  }
  return false;
}

// Builds the graph in two passes over the module. The first lays out every node that has a
// fixed place (root, globals, then per function its arguments and instructions with their
// results); the second adds the edges in traversal order, creating constant and
// function-pointer nodes when first met. Two passes are needed because an operand (a phi's
// incoming value) or a callee may come later in the module than its use.
class ProgramlBuilder {
 public:
  explicit ProgramlBuilder(const llvm::Module& module) : module_(module), slots_(&module) {}

  ProgramlGraph Build() && {
    Reserve();
    printed_ = PrintModule(module_);
    AddNode(kProgramlInstruction, "[external]", "[external]", kNone, kNone);
    for (const llvm::GlobalVariable& global : module_.globals()) AddValueNode(global, kNone);
    for (const llvm::Function& function : module_) {
      if (function.isDeclaration()) continue;
      LayOutFunction(function);
    }
    for (const llvm::Function& function : module_) {
      if (!function.isDeclaration()) ConnectFunction(function);
    }
    return std::move(graph_);
  }

 private:
  // Where a defined function's call edges attach.
  struct FunctionNodes {
    int32_t entry = kNone;
    std::vector<int32_t> exits;
  };

  void Reserve() {
    size_t values = 1 + module_.global_size(), instructions = 0;
    for (const llvm::Function& function : module_) {
      if (function.isDeclaration()) continue;
      values += function.arg_size();
      instructions += function.getInstructionCount();
    }
    // Roughly: an instruction has a result and three operand or control edges.
    const size_t nodes = values + 2 * instructions;
    graph_.node_type.reserve(nodes);
    graph_.node_text.reserve(nodes);
    graph_.node_full_text.reserve(nodes);
    graph_.node_function.reserve(nodes);
    graph_.node_block.reserve(nodes);
    graph_.edge_source.reserve(4 * instructions);
    graph_.edge_target.reserve(4 * instructions);
    graph_.edge_flow.reserve(4 * instructions);
    graph_.edge_position.reserve(4 * instructions);
    instruction_nodes_.reserve(instructions);
  }

  int32_t AddNode(ProgramlNodeType type, const std::string& text, const std::string& full_text,
                  int32_t function, int32_t block) {
    const auto id = static_cast<int32_t>(graph_.node_type.size());
    graph_.node_type.push_back(type);
    graph_.node_text.push_back(text);
    graph_.node_full_text.push_back(full_text);
    graph_.node_function.push_back(function);
    graph_.node_block.push_back(block);
    return id;
  }

  void AddEdge(int32_t source, int32_t target, ProgramlFlow flow, int32_t position) {
    graph_.edge_source.push_back(source);
    graph_.edge_target.push_back(target);
    graph_.edge_flow.push_back(flow);
    graph_.edge_position.push_back(position);
  }

  // A variable (argument, global, instruction result, function pointer) or constant node for
  // `value`, registered so that its uses find it.
  int32_t AddValueNode(const llvm::Value& value, int32_t function, int32_t block = kNone,
                       ProgramlNodeType type = kProgramlVariable) {
    full_text_.clear();
    value.printAsOperand(full_text_stream_, /*PrintType=*/true, slots_);
    const int32_t id = AddNode(type, TypeText(value), full_text_, function, block);
    value_nodes_[&value] = id;
    return id;
  }

  // The printed type of `value`; full_text_ must already hold the value printed with its type.
  const std::string& TypeText(const llvm::Value& value) {
    const llvm::Type* type = value.getType();
    auto [it, inserted] = type_text_.try_emplace(type);
    if (!inserted) return it->second;
    std::string& text = it->second;
    if (!HasUnnamedStruct(type)) {
      llvm::raw_string_ostream os(text);
      type->print(os);
      return text;
    }
    // The slot tracker's type printer numbers unnamed structs, but it is only reachable through
    // a value, so cut the operand off the value printed with its type.
    std::string operand;
    llvm::raw_string_ostream os(operand);
    value.printAsOperand(os, /*PrintType=*/false, slots_);
    text = full_text_.substr(0, full_text_.size() - operand.size() - 1);
    return text;
  }

  void LayOutFunction(const llvm::Function& function) {
    const auto f = static_cast<int32_t>(graph_.functions.size());
    graph_.functions.push_back(function.getName().str());
    slots_.incorporateFunction(function);
    for (const llvm::Argument& arg : function.args()) AddValueNode(arg, f);
    FunctionNodes& nodes = function_nodes_[&function];
    int32_t b = 0;
    for (const llvm::BasicBlock& block : function) {
      for (const llvm::Instruction& inst : block) {
        const int32_t id =
            AddNode(kProgramlInstruction, inst.getOpcodeName(), InstructionText(inst), f, b);
        instruction_nodes_.push_back(id);
        if (&inst == &block.front()) block_entries_[&block] = id;
        if (nodes.entry == kNone) nodes.entry = id;
        if (llvm::isa<llvm::ReturnInst, llvm::ResumeInst>(inst)) nodes.exits.push_back(id);
        if (!inst.getType()->isVoidTy()) AddValueNode(inst, f, b);
      }
      ++b;
    }
  }

  // The instruction as LLVM prints it, without the indent.
  const std::string& InstructionText(const llvm::Instruction& inst) {
    full_text_.clear();
    const auto& spans = printed_.spans;
    while (next_span_ < spans.size() && !llvm::isa<llvm::Instruction>(spans[next_span_].value)) {
      ++next_span_;  // a global variable
    }
    if (next_span_ < spans.size() && spans[next_span_].value == &inst) {
      full_text_.append(printed_.TextOf(spans[next_span_++]));
    } else {
      // Not seen in the module's printout (never expected): print it on its own.
      inst.print(full_text_stream_, slots_);
    }
    const size_t indent = full_text_.find_first_not_of(' ');
    if (indent != std::string::npos) full_text_.erase(0, indent);
    return full_text_;
  }

  // The node an operand flows from, or kNone when the operand is not data (a label, metadata).
  int32_t OperandNode(const llvm::Value* value) {
    if (value == nullptr || llvm::isa<llvm::BasicBlock, llvm::MetadataAsValue>(value)) {
      return kNone;
    }
    auto it = value_nodes_.find(value);
    if (it != value_nodes_.end()) return it->second;
    // Arguments, instruction results and global variables were all laid out in the first pass.
    // A function used as a value is a pointer, like a global; everything else is a constant,
    // including global aliases and inline asm, which are not variables of this module.
    if (llvm::isa<llvm::Function>(value)) return AddValueNode(*value, kNone);
    return AddValueNode(*value, kNone, kNone, kProgramlConstant);
  }

  void ConnectFunction(const llvm::Function& function) {
    // Constants are printed here and a blockaddress names its function's blocks by slot.
    slots_.incorporateFunction(function);
    const FunctionNodes& nodes = function_nodes_.find(&function)->second;
    AddEdge(kRoot, nodes.entry, kProgramlCall, 0);
    for (const llvm::BasicBlock& block : function) {
      for (const llvm::Instruction& inst : block) {
        const int32_t id = instruction_nodes_[next_instruction_++];
        if (!inst.getType()->isVoidTy()) AddEdge(id, id + 1, kProgramlData, 0);

        const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
        for (const llvm::Use& use : inst.operands()) {
          if (call != nullptr && call->isCallee(&use)) continue;
          const int32_t source = OperandNode(use.get());
          if (source != kNone) {
            AddEdge(source, id, kProgramlData, static_cast<int32_t>(use.getOperandNo()));
          }
        }

        if (inst.getNextNode() != nullptr) {
          AddEdge(id, instruction_nodes_[next_instruction_], kProgramlControl, 0);
        } else if (inst.isTerminator()) {
          const unsigned successors = inst.getNumSuccessors();
          for (unsigned i = 0; i < successors; ++i) {
            auto it = block_entries_.find(inst.getSuccessor(i));
            if (it != block_entries_.end()) {
              AddEdge(id, it->second, kProgramlControl, static_cast<int32_t>(i));
            }
          }
        }

        if (call != nullptr) ConnectCall(*call, id);
        if (llvm::isa<llvm::ReturnInst, llvm::ResumeInst>(inst)) {
          AddEdge(id, kRoot, kProgramlCall, 0);
        }
      }
    }
  }

  void ConnectCall(const llvm::CallBase& call, int32_t id) {
    const llvm::Function* callee = call.getCalledFunction();
    auto it = callee == nullptr ? function_nodes_.end() : function_nodes_.find(callee);
    if (it == function_nodes_.end()) {
      // A declaration, an intrinsic or an indirect call: control leaves the module.
      AddEdge(id, kRoot, kProgramlCall, 0);
      AddEdge(kRoot, id, kProgramlCall, 0);
      return;
    }
    AddEdge(id, it->second.entry, kProgramlCall, 0);
    for (int32_t exit : it->second.exits) AddEdge(exit, id, kProgramlCall, 0);
  }

  const llvm::Module& module_;
  // One slot tracker for the whole module: printing without one renumbers the module (or
  // function) on every call, which makes the builder quadratic.
  llvm::ModuleSlotTracker slots_;
  ProgramlGraph graph_;

  // The module printed once, and where its instructions lie in it.
  PrintedModule printed_;
  size_t next_span_ = 0;

  // Reused print buffer.
  std::string full_text_;
  llvm::raw_string_ostream full_text_stream_{full_text_};

  // Lookups only: the module's own iteration order decides node and edge order.
  llvm::DenseMap<const llvm::Value*, int32_t> value_nodes_;
  llvm::DenseMap<const llvm::BasicBlock*, int32_t> block_entries_;
  llvm::DenseMap<const llvm::Function*, FunctionNodes> function_nodes_;
  llvm::DenseMap<const llvm::Type*, std::string> type_text_;

  // Instruction node ids in traversal order, replayed by the second pass.
  std::vector<int32_t> instruction_nodes_;
  size_t next_instruction_ = 0;
};

void AppendJsonInt(std::string& out, int64_t value) {
  char buffer[24];
  out.append(buffer, std::to_chars(buffer, buffer + sizeof(buffer), value).ptr);
}

// Almost every text is printable ASCII without quotes or backslashes and goes in as is; the rest
// (quoted LLVM names, c"..." strings, the line break in an invoke) are escaped by nlohmann, which
// also replaces invalid UTF-8 in function names.
void AppendJsonString(std::string& out, const std::string& text) {
  const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x20 && byte < 0x80 && c != '"' && c != '\\';
  });
  if (plain) {
    out += '"';
    out += text;
    out += '"';
    return;
  }
  out += nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

ProgramlGraph BuildProgramlGraph(const llvm::Module& module) {
  return ProgramlBuilder(module).Build();
}

std::string ProgramlToNodeLinkJson(const ProgramlGraph& graph) {
  const size_t num_nodes = graph.node_type.size();
  const size_t num_edges = graph.edge_source.size();
  CG_CHECK(graph.node_text.size() == num_nodes && graph.node_full_text.size() == num_nodes &&
           graph.node_function.size() == num_nodes && graph.node_block.size() == num_nodes);
  CG_CHECK(graph.edge_target.size() == num_edges && graph.edge_flow.size() == num_edges &&
           graph.edge_position.size() == num_edges);

  // Written straight into one string in the documented key order: a DOM of one object per node
  // and link costs about ten times the graph build. The text is what nlohmann::ordered_json
  // would dump for the same document (a test checks this).
  std::string out;
  size_t text_bytes = 0;
  for (size_t i = 0; i < num_nodes; ++i) {
    text_bytes += graph.node_text[i].size() + graph.node_full_text[i].size();
  }
  out.reserve(text_bytes + 96 * num_nodes + 72 * num_edges + 256);

  out += R"({"directed":true,"multigraph":true,"graph":{"functions":[)";
  for (size_t i = 0; i < graph.functions.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(out, graph.functions[i]);
  }
  out += R"(]},"nodes":[)";
  for (size_t i = 0; i < num_nodes; ++i) {
    out += i > 0 ? R"(,{"id":)" : R"({"id":)";
    AppendJsonInt(out, static_cast<int64_t>(i));
    out += R"(,"type":)";
    AppendJsonInt(out, graph.node_type[i]);
    out += R"(,"text":)";
    AppendJsonString(out, graph.node_text[i]);
    out += R"(,"full_text":)";
    AppendJsonString(out, graph.node_full_text[i]);
    out += R"(,"function":)";
    AppendJsonInt(out, graph.node_function[i]);
    out += R"(,"block":)";
    AppendJsonInt(out, graph.node_block[i]);
    out += '}';
  }
  out += R"(],"links":[)";
  // A multigraph tells parallel edges apart by key: 0, 1, ... per (source, target) pair.
  std::unordered_map<uint64_t, int32_t> next_key;
  next_key.reserve(num_edges);
  for (size_t i = 0; i < num_edges; ++i) {
    const uint64_t pair =
        (static_cast<uint64_t>(static_cast<uint32_t>(graph.edge_source[i])) << 32) |
        static_cast<uint32_t>(graph.edge_target[i]);
    out += i > 0 ? R"(,{"source":)" : R"({"source":)";
    AppendJsonInt(out, graph.edge_source[i]);
    out += R"(,"target":)";
    AppendJsonInt(out, graph.edge_target[i]);
    out += R"(,"key":)";
    AppendJsonInt(out, next_key[pair]++);
    out += R"(,"flow":)";
    AppendJsonInt(out, graph.edge_flow[i]);
    out += R"(,"position":)";
    AppendJsonInt(out, graph.edge_position[i]);
    out += '}';
  }
  out += "]}";
  return out;
}

}  // namespace compiler_gym::observations
