// Tests of the ProGraML builder on the programl_*.ll fixtures in tests/data: node and edge
// counts per kind, texts as LLVM prints them, determinism, and the node-link JSON.
#include "observations/programl.h"

#include <algorithm>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "llvm/IR/ModuleSlotTracker.h"
#include "llvm/Support/raw_ostream.h"
#include "observations/test_util.h"

namespace compiler_gym::observations {
namespace {

struct Built {
  std::unique_ptr<llvm::LLVMContext> context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module;
  ProgramlGraph graph;
};

Built Build(const std::string& fixture) {
  Built b;
  b.module = testing::ParseFixture(fixture, *b.context);
  if (b.module) b.graph = BuildProgramlGraph(*b.module);
  return b;
}

int64_t CountNodes(const ProgramlGraph& g, ProgramlNodeType type) {
  return std::count(g.node_type.begin(), g.node_type.end(), type);
}

int64_t CountEdges(const ProgramlGraph& g, ProgramlFlow flow) {
  return std::count(g.edge_flow.begin(), g.edge_flow.end(), flow);
}

// How many edges (source, target, flow, position) the graph has.
int CountEdge(const ProgramlGraph& g, int32_t source, int32_t target, ProgramlFlow flow,
              int32_t position) {
  int n = 0;
  for (int64_t i = 0; i < g.num_edges(); ++i) {
    n += g.edge_source[i] == source && g.edge_target[i] == target && g.edge_flow[i] == flow &&
         g.edge_position[i] == position;
  }
  return n;
}

// Edges of one flow touching `node`, as (source, target, position), in edge order.
std::vector<std::tuple<int32_t, int32_t, int32_t>> EdgesAt(const ProgramlGraph& g, int32_t node,
                                                           ProgramlFlow flow) {
  std::vector<std::tuple<int32_t, int32_t, int32_t>> out;
  for (int64_t i = 0; i < g.num_edges(); ++i) {
    if (g.edge_flow[i] == flow && (g.edge_source[i] == node || g.edge_target[i] == node)) {
      out.emplace_back(g.edge_source[i], g.edge_target[i], g.edge_position[i]);
    }
  }
  return out;
}

void ExpectNode(const ProgramlGraph& g, int32_t id, ProgramlNodeType type, const std::string& text,
                const std::string& full_text, int32_t function, int32_t block) {
  ASSERT_LT(id, g.num_nodes());
  EXPECT_EQ(g.node_type[id], type) << id;
  EXPECT_EQ(g.node_text[id], text) << id;
  EXPECT_EQ(g.node_full_text[id], full_text) << id;
  EXPECT_EQ(g.node_function[id], function) << id;
  EXPECT_EQ(g.node_block[id], block) << id;
}

// tests/data/programl_straight.ll by hand. Node ids:
//   0 root; 1 @counter; 2 %0, 3 %1 (arguments);
//   4 mul 5 %a, 6 add 7 %b, 8 load 9 %g, 10 sub 11 %c, 12 store, 13 xor 14 %d, 15 ret;
//   16 i32 3 (the only constant operand; @counter's initializer is not an instruction operand).
// Instructions 1+7 = 8, variables 1+2+5 = 8, constants 1.
// Data: 5 results + operands mul 2, add 2, load 1, sub 2, store 2, xor 2, ret 1 = 17.
// Control: 7 instructions in one block = 6. Call: root -> mul, ret -> root = 2.
TEST(Programl, StraightLineFixture) {
  const auto b = Build("programl_straight.ll");
  const ProgramlGraph& g = b.graph;
  ASSERT_EQ(g.num_nodes(), 17);
  EXPECT_EQ(CountNodes(g, kProgramlInstruction), 8);
  EXPECT_EQ(CountNodes(g, kProgramlVariable), 8);
  EXPECT_EQ(CountNodes(g, kProgramlConstant), 1);
  EXPECT_EQ(g.num_edges(), 25);
  EXPECT_EQ(CountEdges(g, kProgramlData), 17);
  EXPECT_EQ(CountEdges(g, kProgramlControl), 6);
  EXPECT_EQ(CountEdges(g, kProgramlCall), 2);
  EXPECT_EQ(g.functions, std::vector<std::string>{"scale"});

  ExpectNode(g, 0, kProgramlInstruction, "[external]", "[external]", -1, -1);
  ExpectNode(g, 1, kProgramlVariable, "ptr", "ptr @counter", -1, -1);
  ExpectNode(g, 2, kProgramlVariable, "i32", "i32 %0", 0, -1);
  ExpectNode(g, 4, kProgramlInstruction, "mul", "%a = mul i32 %0, 3", 0, 0);
  ExpectNode(g, 5, kProgramlVariable, "i32", "i32 %a", 0, 0);
  ExpectNode(g, 8, kProgramlInstruction, "load", "%g = load i32, ptr @counter, align 4", 0, 0);
  ExpectNode(g, 12, kProgramlInstruction, "store", "store i32 %c, ptr @counter, align 4", 0, 0);
  ExpectNode(g, 15, kProgramlInstruction, "ret", "ret i32 %d", 0, 0);
  ExpectNode(g, 16, kProgramlConstant, "i32", "i32 3", -1, -1);

  EXPECT_EQ(CountEdge(g, 4, 5, kProgramlData, 0), 1);   // mul -> %a
  EXPECT_EQ(CountEdge(g, 2, 4, kProgramlData, 0), 1);   // %0 -> mul
  EXPECT_EQ(CountEdge(g, 1, 8, kProgramlData, 0), 1);   // @counter -> load
  EXPECT_EQ(CountEdge(g, 1, 12, kProgramlData, 1), 1);  // @counter -> store, operand 1
  EXPECT_EQ(CountEdge(g, 11, 12, kProgramlData, 0), 1);
  EXPECT_EQ(CountEdge(g, 3, 13, kProgramlData, 1), 1);  // %1 -> xor, operand 1
  EXPECT_EQ(CountEdge(g, 4, 6, kProgramlControl, 0), 1);
  EXPECT_EQ(CountEdge(g, 12, 13, kProgramlControl, 0), 1);
  EXPECT_EQ(CountEdge(g, 0, 4, kProgramlCall, 0), 1);
  EXPECT_EQ(CountEdge(g, 15, 0, kProgramlCall, 0), 1);
  // The store has no result: no data edge leaves it.
  for (const auto& [source, target, position] : EdgesAt(g, 12, kProgramlData)) {
    EXPECT_EQ(target, 12);
  }
}

// LLVM uniques constants, and so does the graph: i32 3 is one node with an edge into both the
// mul and the add; in the loop fixture i32 0 feeds two phis, the switch (case value, operand 2)
// and the exit phi (operand 1), and i32 1 feeds the increment and the switch (operand 4).
TEST(Programl, ConstantIsOneNodePerValue) {
  const auto straight = Build("programl_straight.ll");
  EXPECT_EQ(EdgesAt(straight.graph, 16, kProgramlData),
            (std::vector<std::tuple<int32_t, int32_t, int32_t>>{{16, 4, 1}, {16, 6, 1}}));

  const auto loop = Build("programl_loop.ll");
  const ProgramlGraph& g = loop.graph;
  ASSERT_EQ(CountNodes(g, kProgramlConstant), 2);
  ExpectNode(g, 20, kProgramlConstant, "i32", "i32 0", -1, -1);
  ExpectNode(g, 21, kProgramlConstant, "i32", "i32 1", -1, -1);
  EXPECT_EQ(EdgesAt(g, 20, kProgramlData), (std::vector<std::tuple<int32_t, int32_t, int32_t>>{
                                               {20, 3, 0}, {20, 5, 0}, {20, 15, 2}, {20, 17, 1}}));
  EXPECT_EQ(EdgesAt(g, 21, kProgramlData),
            (std::vector<std::tuple<int32_t, int32_t, int32_t>>{{21, 12, 1}, {21, 15, 4}}));
}

// tests/data/programl_loop.ll by hand. Node ids (function 0, block in brackets):
//   0 root; 1 %n;
//   [0] 2 br; [1] 3 phi 4 %i, 5 phi 6 %acc, 7 icmp 8 %done, 9 br;
//   [2] 10 add 11 %acc.next, 12 add 13 %next, 14 br; [3] 15 switch; [4] 16 br;
//   [5] 17 phi 18 %r, 19 ret; then constants 20 i32 0, 21 i32 1.
// Instructions 1+12 = 13, variables 1+6 = 7, constants 2.
// Data: 6 results + operands phi 2, phi 2, icmp 2, br 1 (the condition; labels are not data),
//   add 2, add 2, switch 3 (condition and two case values), phi 2, ret 1 = 23.
// Control: in-block 3 (loop) + 2 (body) + 1 (out) = 6; successors: br 1, cond br 2, br 1,
//   switch 3 (default, case 0, case 1), br 1 = 8; 14 in all. Call: 2.
TEST(Programl, LoopFixture) {
  const auto b = Build("programl_loop.ll");
  const ProgramlGraph& g = b.graph;
  ASSERT_EQ(g.num_nodes(), 22);
  EXPECT_EQ(CountNodes(g, kProgramlInstruction), 13);
  EXPECT_EQ(CountNodes(g, kProgramlVariable), 7);
  EXPECT_EQ(g.num_edges(), 39);
  EXPECT_EQ(CountEdges(g, kProgramlData), 23);
  EXPECT_EQ(CountEdges(g, kProgramlControl), 14);
  EXPECT_EQ(CountEdges(g, kProgramlCall), 2);

  ExpectNode(g, 3, kProgramlInstruction, "phi", "%i = phi i32 [ 0, %entry ], [ %next, %body ]", 0,
             1);
  ExpectNode(g, 9, kProgramlInstruction, "br", "br i1 %done, label %exit, label %body", 0, 1);
  ExpectNode(g, 13, kProgramlVariable, "i32", "i32 %next", 0, 2);
  ExpectNode(g, 19, kProgramlInstruction, "ret", "ret i32 %r", 0, 5);

  // The conditional branch: successor 0 is %exit (the switch), successor 1 is %body.
  EXPECT_EQ(EdgesAt(g, 9, kProgramlControl), (std::vector<std::tuple<int32_t, int32_t, int32_t>>{
                                                 {7, 9, 0}, {9, 15, 0}, {9, 10, 1}}));
  EXPECT_EQ(CountEdge(g, 8, 9, kProgramlData, 0), 1);  // %done -> br
  // The back edge and the entry edge into the loop header.
  EXPECT_EQ(CountEdge(g, 14, 3, kProgramlControl, 0), 1);
  EXPECT_EQ(CountEdge(g, 2, 3, kProgramlControl, 0), 1);
  // A phi uses a value defined later in the function.
  EXPECT_EQ(CountEdge(g, 13, 3, kProgramlData, 1), 1);
  // Both switch cases go to %zero: one edge per successor index.
  EXPECT_EQ(CountEdge(g, 15, 17, kProgramlControl, 0), 1);
  EXPECT_EQ(CountEdge(g, 15, 16, kProgramlControl, 1), 1);
  EXPECT_EQ(CountEdge(g, 15, 16, kProgramlControl, 2), 1);
  EXPECT_EQ(CountEdge(g, 6, 15, kProgramlData, 0), 1);  // %acc -> switch
}

// tests/data/programl_calls.ll by hand. Node ids:
//   0 root;
//   @callee (function 0): 1 %x; [0] 2 icmp 3 %c, 4 br; [1] 5 ret; [2] 6 add 7 %y, 8 ret;
//   @caller (function 1): 9 %a, 10 %fp; [0] 11 call @callee 12 %r, 13 call @ext 14 %e,
//     15 call @register, 16 call @llvm.smax 17 %m, 18 call %fp 19 %i, 20 ret;
//   then in traversal order: 21 i32 0, 22 i32 -1, 23 @callee as a pointer (a variable).
// Instructions 1+5+6 = 12, variables 3+6+1 = 10, constants 2.
// Data: 6 results + operands icmp 2, br 1, ret 1, add 2, ret 1, call 1, call 1, call 1 (the
//   pointer), smax 2, call 1 (callees are not data), ret 1 = 20.
// Control: @callee 1 + 2 + 1 = 4, @caller 5 = 9.
// Call: root -> 2, 5 -> root, 8 -> root; root -> 11; 11 -> 2, 5 -> 11, 8 -> 11; 13, 15, 16 and
//   18 to and from the root (8); 20 -> root = 16.
TEST(Programl, CallFixture) {
  const auto b = Build("programl_calls.ll");
  const ProgramlGraph& g = b.graph;
  ASSERT_EQ(g.num_nodes(), 24);
  EXPECT_EQ(CountNodes(g, kProgramlInstruction), 12);
  EXPECT_EQ(CountNodes(g, kProgramlVariable), 10);
  EXPECT_EQ(CountNodes(g, kProgramlConstant), 2);
  EXPECT_EQ(g.num_edges(), 45);
  EXPECT_EQ(CountEdges(g, kProgramlData), 20);
  EXPECT_EQ(CountEdges(g, kProgramlControl), 9);
  EXPECT_EQ(CountEdges(g, kProgramlCall), 16);
  EXPECT_EQ(g.functions, (std::vector<std::string>{"callee", "caller"}));

  ExpectNode(g, 11, kProgramlInstruction, "call", "%r = call i32 @callee(i32 %a)", 1, 0);
  ExpectNode(g, 22, kProgramlConstant, "i32", "i32 -1", -1, -1);
  // A function used as a value is a variable, like a global.
  ExpectNode(g, 23, kProgramlVariable, "ptr", "ptr @callee", -1, -1);
  EXPECT_EQ(CountEdge(g, 23, 15, kProgramlData, 0), 1);
  // Callees are not data: @callee feeds nothing but @register's call, %fp feeds nothing.
  EXPECT_EQ(EdgesAt(g, 10, kProgramlData).size(), 0u);
  EXPECT_EQ(EdgesAt(g, 23, kProgramlData).size(), 1u);

  // The root's call edges, in edge order: into each entry, out of each exit, and to and from
  // each call that leaves the module.
  EXPECT_EQ(EdgesAt(g, 0, kProgramlCall),
            (std::vector<std::tuple<int32_t, int32_t, int32_t>>{{0, 2, 0},
                                                                {5, 0, 0},
                                                                {8, 0, 0},
                                                                {0, 11, 0},
                                                                {13, 0, 0},
                                                                {0, 13, 0},
                                                                {15, 0, 0},
                                                                {0, 15, 0},
                                                                {16, 0, 0},
                                                                {0, 16, 0},
                                                                {18, 0, 0},
                                                                {0, 18, 0},
                                                                {20, 0, 0}}));
  // The call of a defined function enters its entry and comes back from both of its returns.
  EXPECT_EQ(EdgesAt(g, 11, kProgramlCall), (std::vector<std::tuple<int32_t, int32_t, int32_t>>{
                                               {0, 11, 0}, {11, 2, 0}, {5, 11, 0}, {8, 11, 0}}));
}

// tests/data/programl_eh.ll by hand. Node ids:
//   0 root, 1 @table, 2 @pair;
//   @thrower (function 0): 3 %p; [0] 4 store, 5 ret;
//   @misc (function 1): 6 %p; [0] 7 load 8 %v, 9 getelementptr 10 %e, 11 invoke;
//     [1] 12 load 13 %w, 14 ret; [2] 15 landingpad 16 %x, 17 resume;
//   then 18 i32 7, 19 i64 0, 20 i64 1, 21 the getelementptr constant expression.
// Instructions 1+2+7 = 10, variables 2+1+1+4 = 8, constants 4.
// Data: 4 results + operands store 2, load 1, gep 3, invoke 1, load 1, ret 1, resume 1 = 14.
// Control: 1 (@thrower) + 2 + invoke's normal (0) and unwind (1) successors + 1 + 1 = 7.
// Call: root -> 4, 5 -> root; root -> 7, invoke 11 -> 4, 5 -> 11, ret 14 -> root,
//   resume 17 -> root = 7.
TEST(Programl, InvokeResumeAndTypesFixture) {
  const auto b = Build("programl_eh.ll");
  const ProgramlGraph& g = b.graph;
  ASSERT_EQ(g.num_nodes(), 22);
  EXPECT_EQ(CountNodes(g, kProgramlInstruction), 10);
  EXPECT_EQ(CountNodes(g, kProgramlVariable), 8);
  EXPECT_EQ(CountNodes(g, kProgramlConstant), 4);
  EXPECT_EQ(g.num_edges(), 28);
  EXPECT_EQ(CountEdges(g, kProgramlData), 14);
  EXPECT_EQ(CountEdges(g, kProgramlControl), 7);
  EXPECT_EQ(CountEdges(g, kProgramlCall), 7);

  ExpectNode(g, 2, kProgramlVariable, "ptr", "ptr @pair", -1, -1);
  // An unnamed struct prints by its module number, not by its address.
  ExpectNode(g, 8, kProgramlVariable, "%0", "%0 %v", 1, 0);
  ExpectNode(g, 16, kProgramlVariable, "{ ptr, i32 }", "{ ptr, i32 } %x", 1, 2);
  // LLVM prints an invoke over two lines; the text is kept as LLVM prints it.
  ExpectNode(g, 11, kProgramlInstruction, "invoke",
             "invoke void @thrower(ptr %e)\n          to label %ok unwind label %lp", 1, 0);
  ExpectNode(g, 17, kProgramlInstruction, "resume", "resume { ptr, i32 } %x", 1, 2);
  ExpectNode(g, 21, kProgramlConstant, "ptr",
             "ptr getelementptr inbounds ([2 x i32], ptr @table, i64 0, i64 1)", -1, -1);
  EXPECT_EQ(CountEdge(g, 21, 12, kProgramlData, 0), 1);
  EXPECT_EQ(CountEdge(g, 1, 9, kProgramlData, 0), 1);  // @table -> getelementptr
  EXPECT_EQ(CountEdge(g, 20, 9, kProgramlData, 2), 1);
  EXPECT_EQ(CountEdge(g, 10, 11, kProgramlData, 0), 1);  // %e -> invoke

  EXPECT_EQ(CountEdge(g, 11, 12, kProgramlControl, 0), 1);
  EXPECT_EQ(CountEdge(g, 11, 15, kProgramlControl, 1), 1);
  EXPECT_EQ(EdgesAt(g, 11, kProgramlCall),
            (std::vector<std::tuple<int32_t, int32_t, int32_t>>{{11, 4, 0}, {5, 11, 0}}));
  EXPECT_EQ(CountEdge(g, 17, 0, kProgramlCall, 0), 1);
  EXPECT_EQ(CountEdge(g, 14, 0, kProgramlCall, 0), 1);
}

// Invariants every graph keeps, over all fixtures: endpoints are nodes; control and call edges
// join instructions; a data edge joins an instruction to a value, in either direction.
TEST(Programl, EdgesJoinTheRightKindsOfNode) {
  for (const char* fixture : {"programl_straight.ll", "programl_loop.ll", "programl_calls.ll",
                              "programl_eh.ll", "instcount.ll", "autophase.ll"}) {
    const auto b = Build(fixture);
    const ProgramlGraph& g = b.graph;
    ASSERT_GT(g.num_nodes(), 1) << fixture;
    for (int64_t i = 0; i < g.num_edges(); ++i) {
      const int32_t s = g.edge_source[i], t = g.edge_target[i];
      ASSERT_TRUE(s >= 0 && s < g.num_nodes() && t >= 0 && t < g.num_nodes()) << fixture;
      const bool s_inst = g.node_type[s] == kProgramlInstruction;
      const bool t_inst = g.node_type[t] == kProgramlInstruction;
      if (g.edge_flow[i] == kProgramlData) {
        EXPECT_NE(s_inst, t_inst) << fixture << " edge " << i;
      } else {
        EXPECT_TRUE(s_inst && t_inst) << fixture << " edge " << i;
      }
    }
  }
}

// A declared function has no nodes; an external global is still a variable.
TEST(Programl, DeclarationsHaveNoNodes) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  const auto module = llvm::parseAssemblyString("@g = external global i32\ndeclare i32 @ext(i32)\n",
                                                error, context);
  ASSERT_TRUE(module) << error.getMessage().str();
  const ProgramlGraph g = BuildProgramlGraph(*module);
  ASSERT_EQ(g.num_nodes(), 2);
  ExpectNode(g, 1, kProgramlVariable, "ptr", "ptr @g", -1, -1);
  EXPECT_EQ(g.num_edges(), 0);
  EXPECT_TRUE(g.functions.empty());
}

// Instruction texts come from one printout of the whole module (for speed); they must be exactly
// what Instruction::print gives with a module slot tracker, indent removed.
TEST(Programl, InstructionTextIsLlvmPrint) {
  for (const char* fixture : {"programl_straight.ll", "programl_loop.ll", "programl_calls.ll",
                              "programl_eh.ll", "instcount.ll", "autophase.ll"}) {
    const auto b = Build(fixture);
    const ProgramlGraph& g = b.graph;
    llvm::ModuleSlotTracker slots(b.module.get());
    int32_t node = 0;
    for (const llvm::Function& function : *b.module) {
      if (function.isDeclaration()) continue;
      slots.incorporateFunction(function);
      for (const llvm::BasicBlock& block : function) {
        for (const llvm::Instruction& inst : block) {
          // The next instruction node: results sit between instructions.
          ++node;
          while (node < g.num_nodes() && g.node_type[node] != kProgramlInstruction) ++node;
          ASSERT_LT(node, g.num_nodes()) << fixture;
          std::string text;
          llvm::raw_string_ostream os(text);
          inst.print(os, slots);
          EXPECT_EQ(g.node_full_text[node], text.substr(text.find_first_not_of(' ')))
              << fixture << " node " << node;
        }
      }
    }
  }
}

// Two parses of one file live in different contexts at different addresses; the graph must not
// depend on either (the unnamed struct is the case that would print an address).
TEST(Programl, DeterministicAcrossParses) {
  for (const char* fixture : {"programl_calls.ll", "programl_eh.ll", "programl_loop.ll"}) {
    const auto a = Build(fixture);
    const auto b = Build(fixture);
    EXPECT_EQ(a.graph.node_type, b.graph.node_type) << fixture;
    EXPECT_EQ(a.graph.node_text, b.graph.node_text) << fixture;
    EXPECT_EQ(a.graph.node_full_text, b.graph.node_full_text) << fixture;
    EXPECT_EQ(a.graph.node_function, b.graph.node_function) << fixture;
    EXPECT_EQ(a.graph.node_block, b.graph.node_block) << fixture;
    EXPECT_EQ(a.graph.edge_source, b.graph.edge_source) << fixture;
    EXPECT_EQ(a.graph.edge_target, b.graph.edge_target) << fixture;
    EXPECT_EQ(a.graph.edge_flow, b.graph.edge_flow) << fixture;
    EXPECT_EQ(a.graph.edge_position, b.graph.edge_position) << fixture;
    EXPECT_EQ(a.graph.functions, b.graph.functions) << fixture;
    EXPECT_EQ(ProgramlToNodeLinkJson(a.graph), ProgramlToNodeLinkJson(b.graph)) << fixture;
  }
}

// The loop fixture's switch sends cases 0 and 1 to one block: two parallel edges 15 -> 16, which
// a networkx multigraph tells apart by key 0 and key 1.
TEST(Programl, NodeLinkJson) {
  const auto b = Build("programl_loop.ll");
  const ProgramlGraph& g = b.graph;
  const std::string text = ProgramlToNodeLinkJson(g);
  const auto json = nlohmann::json::parse(text);
  EXPECT_EQ(nlohmann::ordered_json::parse(text).dump(), text);
  EXPECT_EQ(json.at("directed"), true);
  EXPECT_EQ(json.at("multigraph"), true);
  EXPECT_EQ(json.at("graph").at("functions"), nlohmann::json::array({"sum"}));
  ASSERT_EQ(json.at("nodes").size(), 22u);
  ASSERT_EQ(json.at("links").size(), 39u);

  const auto& node = json.at("nodes")[9];
  EXPECT_EQ(node.at("id"), 9);
  EXPECT_EQ(node.at("type"), kProgramlInstruction);
  EXPECT_EQ(node.at("text"), "br");
  EXPECT_EQ(node.at("full_text"), "br i1 %done, label %exit, label %body");
  EXPECT_EQ(node.at("function"), 0);
  EXPECT_EQ(node.at("block"), 1);
  EXPECT_EQ(json.at("nodes")[20].at("type"), kProgramlConstant);
  EXPECT_EQ(json.at("nodes")[0].at("function"), -1);

  std::map<std::pair<int, int>, int> keys;  // position -> key for the switch's edges to %zero
  for (size_t i = 0; i < json.at("links").size(); ++i) {
    const auto& link = json.at("links")[i];
    EXPECT_EQ(link.at("source"), g.edge_source[i]);
    EXPECT_EQ(link.at("target"), g.edge_target[i]);
    EXPECT_EQ(link.at("flow"), g.edge_flow[i]);
    EXPECT_EQ(link.at("position"), g.edge_position[i]);
    if (link.at("source") == 15 && link.at("target") == 16) {
      keys[{link.at("flow"), link.at("position")}] = link.at("key");
    } else {
      EXPECT_EQ(link.at("key"), 0) << i;  // no other parallel edges in this graph
    }
  }
  EXPECT_EQ(keys, (std::map<std::pair<int, int>, int>{{{kProgramlControl, 1}, 0},
                                                      {{kProgramlControl, 2}, 1}}));
}

// The writer emits exactly what nlohmann::ordered_json dumps for the same document, escaping
// included, and turns invalid UTF-8 (possible in a function name) into U+FFFD.
TEST(Programl, NodeLinkJsonEscapesText) {
  ProgramlGraph g;
  for (int i = 0; i < 2; ++i) {
    g.node_type.push_back(kProgramlInstruction);
    g.node_function.push_back(i - 1);
    g.node_block.push_back(i - 1);
  }
  g.node_text = {"[external]", "call"};
  g.node_full_text = {"a \"quoted\" \\ name", "two\nlines\t\x01 caf\xc3\xa9"};
  g.functions = {"bad\xff"};
  for (int i = 0; i < 3; ++i) {
    g.edge_source.push_back(i < 2 ? 1 : 0);
    g.edge_target.push_back(i < 2 ? 0 : 1);
    g.edge_flow.push_back(kProgramlCall);
    g.edge_position.push_back(0);
  }
  const std::string text = ProgramlToNodeLinkJson(g);
  const auto json = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(json.dump(), text);
  EXPECT_EQ(json.at("nodes")[0].at("full_text"), g.node_full_text[0]);
  EXPECT_EQ(json.at("nodes")[1].at("full_text"), g.node_full_text[1]);
  EXPECT_EQ(json.at("graph").at("functions")[0], "bad\xef\xbf\xbd");
  EXPECT_EQ(json.at("links")[0].at("key"), 0);
  EXPECT_EQ(json.at("links")[1].at("key"), 1);  // parallel to link 0
  EXPECT_EQ(json.at("links")[2].at("key"), 0);  // the reverse direction is another pair
}

}  // namespace
}  // namespace compiler_gym::observations
