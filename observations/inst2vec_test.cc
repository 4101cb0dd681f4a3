// Tests of inst2vec: each normalization rule on statements written inline, struct bodies, and
// the statements and flow graph of the IR fixtures in tests/data.
#include "observations/inst2vec.h"

#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "observations/test_util.h"

namespace compiler_gym::observations {
namespace {

using Bodies = std::vector<std::pair<std::string, std::string>>;
using Edges = std::vector<std::pair<int32_t, int32_t>>;

std::string Norm(std::string_view statement, const Bodies& bodies = {}) {
  return Inst2vecNormalize(statement, bodies);
}

// --- Inst2vecNormalize, one rule at a time ------------------------------------------------------

TEST(Inst2vecNormalize, LocalIdentifiers) {
  EXPECT_EQ(Norm("%5 = add i32 %x, %\"a b\""), "<%ID> = add i32 <%ID>, <%ID>");
  EXPECT_EQ(Norm("%x.y-z$1 = sub i32 %0, %arrayidx.i"), "<%ID> = sub i32 <%ID>, <%ID>");
  EXPECT_EQ(Norm("%call = call i32 %fp(i32 %1)"), "<%ID> = call i32 <%ID>(i32 <%ID>)");
}

TEST(Inst2vecNormalize, GlobalIdentifiers) {
  EXPECT_EQ(Norm("%v = load i32, ptr @g, align 4"), "<%ID> = load i32, ptr <@ID>, align 4");
  EXPECT_EQ(Norm("store ptr @0, ptr @\"q g\", align 8"), "store ptr <@ID>, ptr <@ID>, align 8");
  EXPECT_EQ(Norm("@.str.1 = private constant i8 0"), "<@ID> = private constant i8 <INT>");
}

TEST(Inst2vecNormalize, IntrinsicNamesAreGlobals) {
  EXPECT_EQ(Norm("call void @llvm.memcpy.p0.p0.i64(ptr align 16 %d, ptr align 16 "
                 "@__const.main.a, i64 40, i1 false)"),
            "call void <@ID>(ptr align 16 <%ID>, ptr align 16 <@ID>, i64 <INT>, i1 false)");
}

TEST(Inst2vecNormalize, BranchTargetsAreLabels) {
  EXPECT_EQ(Norm("br i1 %c, label %if.then, label %5"),
            "br i1 <%ID>, label <LABEL>, label <LABEL>");
  EXPECT_EQ(Norm("br label %\"a block\""), "br label <LABEL>");
  EXPECT_EQ(Norm("indirectbr ptr %t, [label %a, label %b]"),
            "indirectbr ptr <%ID>, [label <LABEL>, label <LABEL>]");
  EXPECT_EQ(Norm("%r = invoke i32 @f() to label %ok unwind label %lpad"),
            "<%ID> = invoke i32 <@ID>() to label <LABEL> unwind label <LABEL>");
}

// LLVM prints a switch over several lines; the case values are integers in value positions.
TEST(Inst2vecNormalize, SwitchCasesAndLabels) {
  EXPECT_EQ(
      Norm("switch i32 %x, label %default [\n    i32 0, label %a\n    i32 -7, label %b\n  ]"),
      "switch i32 <%ID>, label <LABEL> [ i32 <INT>, label <LABEL> i32 <INT>, label <LABEL> ]");
}

// The incoming blocks of a phi are not written with "label": they are plain local identifiers.
TEST(Inst2vecNormalize, PhiBlocksAreLocalIdentifiers) {
  EXPECT_EQ(Norm("%i = phi i32 [ 0, %entry ], [ %next, %loop ]"),
            "<%ID> = phi i32 [ <INT>, <%ID> ], [ <%ID>, <%ID> ]");
}

TEST(Inst2vecNormalize, IntegersInValuePositions) {
  EXPECT_EQ(Norm("%a = add nsw i32 %x, -7"), "<%ID> = add nsw i32 <%ID>, <INT>");
  EXPECT_EQ(Norm("%c = icmp slt i64 %i, 100"), "<%ID> = icmp slt i64 <%ID>, <INT>");
  EXPECT_EQ(Norm("store i32 0, ptr %p, align 4"), "store i32 <INT>, ptr <%ID>, align 4");
  EXPECT_EQ(Norm("%e = extractvalue { i32, i32 } %s, 1"),
            "<%ID> = extractvalue { i32, i32 } <%ID>, <INT>");
  EXPECT_EQ(Norm("%v = insertelement <4 x i32> <i32 1, i32 2, i32 3, i32 4>, i32 -1, i32 0"),
            "<%ID> = insertelement <4 x i32> <i32 <INT>, i32 <INT>, i32 <INT>, i32 <INT>>, "
            "i32 <INT>, i32 <INT>");
  EXPECT_EQ(Norm("%k = alloca i32, i32 5, align 4"), "<%ID> = alloca i32, i32 <INT>, align 4");
}

TEST(Inst2vecNormalize, GetelementptrIndices) {
  EXPECT_EQ(Norm("%p = getelementptr inbounds [10 x i32], ptr %a, i64 0, i64 %i"),
            "<%ID> = getelementptr inbounds [10 x i32], ptr <%ID>, i64 <INT>, i64 <%ID>");
  EXPECT_EQ(Norm("%q = load i32, ptr getelementptr inbounds ([2 x i32], ptr @t, i64 0, i64 1)"),
            "<%ID> = load i32, ptr getelementptr inbounds ([2 x i32], ptr <@ID>, i64 <INT>, "
            "i64 <INT>)");
}

// Array and vector element counts and address spaces belong to the type and stay, as do
// alignments and calling convention numbers.
TEST(Inst2vecNormalize, IntegersOutsideValuePositionsStay) {
  EXPECT_EQ(Norm("%a = alloca [10 x [2 x i8]], align 16"),
            "<%ID> = alloca [10 x [2 x i8]], align 16");
  EXPECT_EQ(Norm("%v = alloca <vscale x 4 x i32>, align 16"),
            "<%ID> = alloca <vscale x 4 x i32>, align 16");
  EXPECT_EQ(Norm("%l = load i64, ptr addrspace(1) %p, align 8"),
            "<%ID> = load i64, ptr addrspace(1) <%ID>, align 8");
  EXPECT_EQ(Norm("call void @f(ptr align(8) %p, ptr alignstack(16) %q)"),
            "call void <@ID>(ptr align(8) <%ID>, ptr alignstack(16) <%ID>)");
  EXPECT_EQ(Norm("%c = call cc 10 i32 @f()"), "<%ID> = call cc 10 i32 <@ID>()");
}

// Object sizes and value ranges in attributes are values, like the constants they come from.
TEST(Inst2vecNormalize, IntegersInAttributeArgumentsAreValues) {
  EXPECT_EQ(Norm("%m = tail call noalias dereferenceable_or_null(4100) ptr @malloc(i64 4100)"),
            "<%ID> = tail call noalias dereferenceable_or_null(<INT>) ptr <@ID>(i64 <INT>)");
  EXPECT_EQ(Norm("%c = call range(i32 -32768, 32768) i32 @f(ptr dereferenceable(8) %p)"),
            "<%ID> = call range(i32 <INT>, <INT>) i32 <@ID>(ptr dereferenceable(<INT>) <%ID>)");
}

TEST(Inst2vecNormalize, FloatsOfEverySyntax) {
  EXPECT_EQ(Norm("%a = fadd double %x, 1.000000e+00"), "<%ID> = fadd double <%ID>, <FLOAT>");
  EXPECT_EQ(Norm("%b = fmul float %x, -2.500000e-01"), "<%ID> = fmul float <%ID>, <FLOAT>");
  EXPECT_EQ(Norm("%c = fcmp olt double 1.5, 0x3FB99999A0000000"),
            "<%ID> = fcmp olt double <FLOAT>, <FLOAT>");
  EXPECT_EQ(Norm("store x86_fp80 0xK4000C000000000000000, ptr %p"),
            "store x86_fp80 <FLOAT>, ptr <%ID>");
  EXPECT_EQ(Norm("store fp128 0xL00000000000000003FFF000000000000, ptr %p"),
            "store fp128 <FLOAT>, ptr <%ID>");
  EXPECT_EQ(Norm("store ppc_fp128 0xM3FF00000000000000000000000000000, ptr %p"),
            "store ppc_fp128 <FLOAT>, ptr <%ID>");
  EXPECT_EQ(Norm("store half 0xH3C00, ptr %p"), "store half <FLOAT>, ptr <%ID>");
  EXPECT_EQ(Norm("store bfloat 0xR3F80, ptr %p"), "store bfloat <FLOAT>, ptr <%ID>");
  EXPECT_EQ(Norm("store float 1e+10, ptr %p"), "store float <FLOAT>, ptr <%ID>");
}

TEST(Inst2vecNormalize, StringLiterals) {
  EXPECT_EQ(Norm("@.str = private unnamed_addr constant [6 x i8] c\"hello\\0A\\00\", align 1"),
            "<@ID> = private unnamed_addr constant [6 x i8] <STRING>, align 1");
  // Names, numbers, comments and metadata inside the string are part of it.
  EXPECT_EQ(Norm("@s = constant [9 x i8] c\"%d; @x !1\\22\""),
            "<@ID> = constant [9 x i8] <STRING>");
  EXPECT_EQ(Norm("@e = constant [0 x i8] c\"\""), "<@ID> = constant [0 x i8] <STRING>");
}

TEST(Inst2vecNormalize, OtherQuotedStringsStay) {
  EXPECT_EQ(Norm("@g = global i32 0, section \".data.x\", align 4"),
            "<@ID> = global i32 <INT>, section \".data.x\", align 4");
  EXPECT_EQ(Norm("%o = atomicrmw add ptr %p, i32 1 syncscope(\"agent\") seq_cst, align 4"),
            "<%ID> = atomicrmw add ptr <%ID>, i32 <INT> syncscope(\"agent\") seq_cst, align 4");
  EXPECT_EQ(Norm("%r = call i32 asm sideeffect \"mov $0, %eax ; !1\", \"=r\"()"),
            "<%ID> = call i32 asm sideeffect \"mov $0, %eax ; !1\", \"=r\"()");
}

TEST(Inst2vecNormalize, MetadataAttachmentsAreCut) {
  EXPECT_EQ(Norm("%v = load i32, ptr %p, align 4, !tbaa !5, !llvm.access.group !7"),
            "<%ID> = load i32, ptr <%ID>, align 4");
  EXPECT_EQ(Norm("br i1 %c, label %a, label %b, !llvm.loop !3"),
            "br i1 <%ID>, label <LABEL>, label <LABEL>");
  EXPECT_EQ(Norm("ret void, !dbg !12"), "ret void");
  EXPECT_EQ(Norm("@g = global i32 0, align 4, !dbg !0"), "<@ID> = global i32 <INT>, align 4");
  EXPECT_EQ(Norm("%v = load ptr, ptr %p, !nonnull !{}"), "<%ID> = load ptr, ptr <%ID>");
}

TEST(Inst2vecNormalize, MetadataOperandsAreCut) {
  EXPECT_EQ(Norm("call void @llvm.dbg.value(metadata i32 %x, metadata !10, metadata "
                 "!DIExpression(DW_OP_plus_uconst, 8)), !dbg !12"),
            "call void <@ID>(metadata i32 <%ID>, metadata, metadata)");
  EXPECT_EQ(Norm("call void @f(metadata !{i32 1, !\"x\"}, metadata !\"s\")"),
            "call void <@ID>(metadata, metadata)");
}

TEST(Inst2vecNormalize, AttributeGroupsAreCut) {
  EXPECT_EQ(Norm("%c = call i32 @f(i32 2) #3"), "<%ID> = call i32 <@ID>(i32 <INT>)");
  EXPECT_EQ(Norm("call void @g() #0, !dbg !4"), "call void <@ID>()");
  EXPECT_EQ(Norm("@z = global [3 x i8] zeroinitializer #1"),
            "<@ID> = global [3 x i8] zeroinitializer");
}

TEST(Inst2vecNormalize, CommentsAreCut) {
  EXPECT_EQ(Norm("%x = add i32 1, 2 ; sums %y and 5"), "<%ID> = add i32 <INT>, <INT>");
}

TEST(Inst2vecNormalize, WhitespaceIsCollapsedAndTrimmed) {
  EXPECT_EQ(Norm("  \t%x = add  i32 %a,\n  %b  \n"), "<%ID> = add i32 <%ID>, <%ID>");
  EXPECT_EQ(Norm(""), "");
}

TEST(Inst2vecNormalize, KeywordsAndTypesStay) {
  EXPECT_EQ(Norm("store <4 x i32> zeroinitializer, ptr null, align 16"),
            "store <4 x i32> zeroinitializer, ptr null, align 16");
  EXPECT_EQ(Norm("%s = select i1 true, i32 undef, i32 poison"),
            "<%ID> = select i1 true, i32 undef, i32 poison");
  EXPECT_EQ(Norm("%b = icmp ne i1 false, true"), "<%ID> = icmp ne i1 false, true");
  EXPECT_EQ(Norm("%t = trunc i128 %w to i1"), "<%ID> = trunc i128 <%ID> to i1");
  EXPECT_EQ(Norm("%f = fpext half %h to x86_fp80"), "<%ID> = fpext half <%ID> to x86_fp80");
  EXPECT_EQ(Norm("%c = call i32 (ptr, ...) @printf(ptr noundef %p)"),
            "<%ID> = call i32 (ptr, ...) <@ID>(ptr noundef <%ID>)");
  EXPECT_EQ(Norm("%p = cleanuppad within none []"), "<%ID> = cleanuppad within none []");
}

TEST(Inst2vecNormalize, NamedStructsAreInlined) {
  const Bodies bodies = {{"%\"class.std::v\"", "{ ptr, ptr }"}, {"%struct.S", "{ i32, ptr }"}};
  EXPECT_EQ(Norm("%s = alloca %struct.S, align 8", bodies), "<%ID> = alloca { i32, ptr }, align 8");
  EXPECT_EQ(Norm("%f = getelementptr inbounds %struct.S, ptr %s, i32 0, i32 1", bodies),
            "<%ID> = getelementptr inbounds { i32, ptr }, ptr <%ID>, i32 <INT>, i32 <INT>");
  EXPECT_EQ(Norm("%v = load %\"class.std::v\", ptr %p", bodies),
            "<%ID> = load { ptr, ptr }, ptr <%ID>");
  EXPECT_EQ(Norm("@s = global %struct.S { i32 1, ptr null }", bodies),
            "<@ID> = global { i32, ptr } { i32 <INT>, ptr null }");
  // A struct that is not in the map, and a name at the start (the defined value), are values.
  EXPECT_EQ(Norm("%struct.S = alloca %struct.T", bodies), "<%ID> = alloca <%ID>");
}

// The map's bodies are already inlined (Inst2vecStructBodies); they are copied as they are.
TEST(Inst2vecNormalize, NestedStructBodiesAreCopied) {
  const Bodies bodies = {{"%struct.inner", "{ i8, [2 x float] }"},
                         {"%struct.outer", "{ [4 x { i8, [2 x float] }], i64 }"}};
  EXPECT_EQ(Norm("%a = alloca [3 x %struct.outer]", bodies),
            "<%ID> = alloca [3 x { [4 x { i8, [2 x float] }], i64 }]");
}

// At a cycle the body keeps the struct's own name, and it is not rewritten into <%ID>.
TEST(Inst2vecNormalize, SelfReferentialStructKeepsInnerName) {
  const Bodies bodies = {{"%struct.node", "{ i32, %struct.node* }"}};
  EXPECT_EQ(Norm("%n = load %struct.node, ptr %p", bodies),
            "<%ID> = load { i32, %struct.node* }, ptr <%ID>");
}

// --- Inst2vecStructBodies ---------------------------------------------------------------------

TEST(Inst2vecStructBodies, NestedStructsAreInlinedAndSortedByName) {
  llvm::LLVMContext context;
  auto module = testing::ParseFixture("inst2vec.ll", context);
  ASSERT_TRUE(module);
  EXPECT_EQ(Inst2vecStructBodies(*module),
            (Bodies{{"%struct.inner", "{ i8, [2 x float] }"},
                    {"%struct.pair", "{ i32, { i8, [2 x float] } }"}}));
}

// Cycles cannot be written in LLVM 19 IR (pointers are opaque) but can be built in memory; the
// expansion stops at the struct being expanded. Also: packed, empty, opaque and quoted names.
TEST(Inst2vecStructBodies, CyclesKeepTheInnerNameAndShapesPrintAsLlvmDoes) {
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  auto* i32 = llvm::Type::getInt32Ty(context);
  auto* a = llvm::StructType::create(context, "struct.A");
  auto* b = llvm::StructType::create(context, "struct.B");
  a->setBody({i32, b});
  b->setBody({a});
  auto* packed = llvm::StructType::create(context, {llvm::Type::getInt8Ty(context), i32}, "a b",
                                          /*isPacked=*/true);
  auto* empty = llvm::StructType::create(context, llvm::ArrayRef<llvm::Type*>{}, "struct.E");
  auto* opaque = llvm::StructType::create(context, "struct.O");
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context),
                                       {a, packed, empty, llvm::PointerType::get(context, 0)},
                                       /*isVarArg=*/false);
  // The opaque struct is reached only through a declaration's use of it as a parameter type.
  llvm::Function::Create(type, llvm::Function::ExternalLinkage, "f", module);
  llvm::Function::Create(llvm::FunctionType::get(opaque, /*isVarArg=*/false),
                         llvm::Function::ExternalLinkage, "g", module);
  EXPECT_EQ(Inst2vecStructBodies(module), (Bodies{{"%\"a b\"", "<{ i8, i32 }>"},
                                                  {"%struct.A", "{ i32, { %struct.A } }"},
                                                  {"%struct.B", "{ { i32, %struct.B } }"},
                                                  {"%struct.E", "{}"},
                                                  {"%struct.O", "opaque"}}));
}

// --- Inst2vecPreprocess and the statement graph on tests/data/inst2vec.ll ---------------------

const std::vector<std::string> kFixtureStatements = {
    // Global variable definitions (@ext is a declaration).
    "<@ID> = private unnamed_addr constant [4 x i8] <STRING>, align 1",  // 0 @.str
    "<@ID> = global i32 <INT>, align 4",                                 // 1 @count
    // entry
    "<%ID> = getelementptr inbounds { i32, { i8, [2 x float] } }, ptr <%ID>, i64 <INT>, "
    "i32 <INT>, i32 <INT>, i64 <INT>",  // 2 %last
    "br label <LABEL>",                 // 3
    // loop
    "<%ID> = phi i32 [ <INT>, <%ID> ], [ <%ID>, <%ID> ]",  // 4 %i
    "<%ID> = add nsw i32 <%ID>, <INT>",                    // 5 %next
    "<%ID> = icmp eq i32 <%ID>, <%ID>",                    // 6 %done
    "br i1 <%ID>, label <LABEL>, label <LABEL>",           // 7
    // exit
    "<%ID> = load i32, ptr <@ID>, align 4",                          // 8 %c
    "<%ID> = add i32 <%ID>, <%ID>",                                  // 9 %r
    "<%ID> = call i32 (ptr, ...) <@ID>(ptr <@ID>, i32 <%ID>)",       // 10 %call
    "switch i32 <%ID>, label <LABEL> [ i32 <INT>, label <LABEL> ]",  // 11
    // neg
    "ret i32 <INT>",  // 12
    // other
    "store float <FLOAT>, ptr <%ID>, align 4",  // 13
    "ret i32 <%ID>",                            // 14
};

TEST(Inst2vecPreprocess, FixtureStatements) {
  llvm::LLVMContext context;
  auto module = testing::ParseFixture("inst2vec.ll", context);
  ASSERT_TRUE(module);
  EXPECT_EQ(Inst2vecPreprocess(*module), kFixtureStatements);
}

// Edges of tests/data/inst2vec.ll, with the statement numbers above:
//   data, global -> user:   (0,10) @.str in the call, (1,8) @count in the load
//   data, def -> use:       (2,13) %last, (4,5) %i, (5,4) %next in the phi, (5,6) (5,9) %next,
//                           (6,7) %done, (8,9) %c, (9,10) (9,11) (9,14) %r
//   control, within blocks: (2,3) (4,5) (5,6) (6,7) (8,9) (9,10) (10,11) (13,14)
//   control, terminators:   (3,4) entry->loop, (7,8) loop->exit, (7,4) loop->loop,
//                           (11,13) switch default->other, (11,12) case -1->neg
// (4,5) is both data and control; it appears once.
const Edges kFixtureEdges = {{0, 10}, {1, 8},  {2, 3},   {2, 13},  {3, 4},   {4, 5},  {5, 4},
                             {5, 6},  {5, 9},  {6, 7},   {7, 4},   {7, 8},   {8, 9},  {9, 10},
                             {9, 11}, {9, 14}, {10, 11}, {11, 12}, {11, 13}, {13, 14}};

TEST(Inst2vecStatementGraph, FixtureEdges) {
  llvm::LLVMContext context;
  auto module = testing::ParseFixture("inst2vec.ll", context);
  ASSERT_TRUE(module);
  const Inst2vecStatementGraph graph = BuildInst2vecStatementGraph(*module);
  EXPECT_EQ(graph.statements, kFixtureStatements);
  EXPECT_EQ(graph.edges, kFixtureEdges);
}

TEST(Inst2vecStatementGraph, Deterministic) {
  llvm::LLVMContext context1, context2;
  auto module1 = testing::ParseFixture("inst2vec.ll", context1);
  auto module2 = testing::ParseFixture("inst2vec.ll", context2);
  ASSERT_TRUE(module1 && module2);
  const Inst2vecStatementGraph first = BuildInst2vecStatementGraph(*module1);
  const Inst2vecStatementGraph again = BuildInst2vecStatementGraph(*module1);
  const Inst2vecStatementGraph other = BuildInst2vecStatementGraph(*module2);
  EXPECT_EQ(again.statements, first.statements);
  EXPECT_EQ(again.edges, first.edges);
  EXPECT_EQ(other.statements, first.statements);
  EXPECT_EQ(other.edges, first.edges);
  EXPECT_EQ(Inst2vecPreprocess(*module1), first.statements);
}

// tests/data/inst2vec_debug.ll: statements 0 shl, 1 br, 2 ret; edges (0,1) next, (0,2) %y,
// (1,2) br->done. The dbg.value calls are neither statements nor breaks in the control chain,
// whether the module holds them as records (as parsed) or as intrinsic calls.
TEST(Inst2vecStatementGraph, DebugInfoIsNotAStatement) {
  llvm::LLVMContext context;
  auto module = testing::ParseFixture("inst2vec_debug.ll", context);
  ASSERT_TRUE(module);
  const std::vector<std::string> statements = {"<%ID> = shl i32 <%ID>, <INT>", "br label <LABEL>",
                                               "ret i32 <%ID>"};
  const Edges edges = {{0, 1}, {0, 2}, {1, 2}};
  for (const bool intrinsics : {false, true}) {
    SCOPED_TRACE(intrinsics ? "dbg.value calls" : "debug records");
    if (intrinsics) module->convertFromNewDbgValues();
    size_t instructions = 0;
    for (const llvm::Function& function : *module) {
      for (const llvm::BasicBlock& block : function) instructions += block.size();
    }
    EXPECT_EQ(instructions, intrinsics ? 5u : 3u);
    const Inst2vecStatementGraph graph = BuildInst2vecStatementGraph(*module);
    EXPECT_EQ(graph.statements, statements);
    EXPECT_EQ(graph.edges, edges);
  }
}

}  // namespace
}  // namespace compiler_gym::observations
