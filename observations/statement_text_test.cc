// Tests of StatementText against LLVM's printer (test_util.h): the two must normalize alike on
// every IR fixture in tests/data, and rare syntax must go to the printer.
#include "observations/statement_text.h"

#include <filesystem>
#include <map>
#include <set>

#include "llvm/IR/Instruction.h"
#include "observations/inst2vec.h"
#include "observations/test_util.h"

namespace compiler_gym::observations {
namespace {

using testing::ExpectSameStatements;
using testing::FixturePath;
using testing::ParseFixture;
using testing::PrintedInst2vecStatements;

// A statement's text from the writer (or LLVM's printer, where the writer hands over), keyed by
// the name of the value, with whether LLVM's printer wrote it. Unnamed void instructions are
// keyed by opcode and position ("store#3").
struct Written {
  std::string text;
  bool by_llvm;
};

std::map<std::string, Written> WriteAll(const llvm::Module& module) {
  std::map<std::string, Written> written;
  StatementText writer(module);
  int position = 0;
  ForEachInst2vecStatement(module, [&](const llvm::Value& value) {
    ++position;
    const auto* inst = llvm::dyn_cast<llvm::Instruction>(&value);
    std::string key = inst == nullptr ? "@" + value.getName().str()
                      : inst->hasName()
                          ? "%" + inst->getName().str()
                          : std::string(inst->getOpcodeName()) + "#" + std::to_string(position);
    const size_t before = writer.printed_by_llvm();
    std::string text;
    writer.Append(value, text);
    written[key] = {text, writer.printed_by_llvm() > before};
  });
  return written;
}

// Every fixture, normalized from the writer's text and from LLVM's printer, gives the same
// statements.
TEST(StatementText, NormalizesLikeLlvmsPrinterOnEveryFixture) {
  int fixtures = 0;
  for (const auto& entry : std::filesystem::directory_iterator(FixturePath(""))) {
    if (entry.path().extension() != ".ll") continue;
    llvm::LLVMContext context;
    auto module = ParseFixture(entry.path().filename().string(), context);
    ASSERT_TRUE(module);
    ExpectSameStatements(Inst2vecPreprocess(*module), PrintedInst2vecStatements(*module),
                         entry.path().filename().string());
    ++fixtures;
  }
  EXPECT_GE(fixtures, 10);
}

TEST(StatementText, WritesLlvmsSyntax) {
  llvm::LLVMContext context;
  auto module = ParseFixture("statement_text.ll", context);
  ASSERT_TRUE(module);
  const auto written = WriteAll(*module);
  auto text = [&](const std::string& key) {
    auto it = written.find(key);
    EXPECT_NE(it, written.end()) << key;
    EXPECT_FALSE(it->second.by_llvm) << key;
    return it->second.text;
  };
  // Names as written, quoted where LLVM quotes them; flags in LLVM's order.
  EXPECT_EQ(text("%a"), "  %a = add nuw nsw i32 %\"arg one\", 1");
  EXPECT_EQ(text("%g2"), "  %g2 = getelementptr nusw i8, ptr %q, i64 %z");
  EXPECT_EQ(text("%t"), "  %t = trunc nuw nsw i32 %o to i8");
  EXPECT_EQ(text("%fm"), "  %fm = fmul nnan ninf nsz double %fa, %d");
  // Floating-point literals are written as 0.0 and strings as c"": both normalize to one token.
  EXPECT_EQ(text("%fa"), "  %fa = fadd fast double %u2f, 0.0");
  EXPECT_EQ(text("@str"), "@str = private unnamed_addr constant [3 x i8] c\"\", align 1");
  EXPECT_EQ(text("@quoted \"name"), "@\"quoted \\22name\" = internal global i32 -5");
  EXPECT_EQ(text("@nested"),
            "@nested = dso_local global %struct.S { i32 1, %struct.T <{ i16 2, ptr null }>, "
            "[2 x i8] zeroinitializer }");
  EXPECT_EQ(text("@range"),
            "@range = global ptr getelementptr inrange(-8, 8) (i8, ptr @str, i64 1)");
  EXPECT_EQ(text("@wide"), "@wide = weak global i128 170141183460469231731687303715884105727");
  // Calls: return and parameter attributes stay, the attribute group (#0) goes.
  EXPECT_EQ(text("%call"),
            "  %call = tail call i32 (ptr, ...) @printf(ptr noundef @str, i32 %fr, double %sq)");
  EXPECT_EQ(text("%fcc"), "  %fcc = call fastcc i32 @g(i32 1)");
  EXPECT_EQ(text("%shuf"),
            "  %shuf = shufflevector <4 x i32> %ins, <4 x i32> poison, <4 x i32> zeroinitializer");
  EXPECT_EQ(
      text("%shuf2"),
      "  %shuf2 = shufflevector <4 x i32> %ins, <4 x i32> %vs, <2 x i32> <i32 5, i32 poison>");
  EXPECT_EQ(text("%nc"), "  %nc = notail call zeroext i8 @ret_attrs(i32 signext %fr)");
  // Metadata attachments go.
  EXPECT_EQ(text("%lv"), "  %lv = load volatile i32, ptr %q, align 4");
  EXPECT_EQ(text("%n"), "  %n = alloca i32, i64 4, align 16");
  EXPECT_EQ(text("%as"), "  %as = alloca i32, align 4, addrspace(5)");
  EXPECT_EQ(text("%ph"), "  %ph = phi i32 [ 0, %entry ], [ %inv, %one ]");
  EXPECT_EQ(text("%agg2"), "  %agg2 = insertvalue { i32, { i8, float } } %agg, i8 %t, 1, 0");
  bool found_switch = false;
  for (const auto& [key, value] : written) {
    if (key.rfind("switch#", 0) != 0) continue;
    found_switch = true;
    EXPECT_EQ(
        value.text,
        "  switch i32 %fr, label %exit [\n    i32 0, label %one\n    i32 -7, label %two\n  ]");
  }
  EXPECT_TRUE(found_switch);
}

// The writer hands exactly the rare forms to LLVM's printer.
TEST(StatementText, HandsRareSyntaxToLlvmsPrinter) {
  llvm::LLVMContext context;
  auto module = ParseFixture("statement_text.ll", context);
  ASSERT_TRUE(module);
  std::set<std::string> by_llvm;
  for (const auto& [key, value] : WriteAll(*module)) {
    if (value.by_llvm) by_llvm.insert(key.substr(0, key.find('#')));
  }
  // Block address, section, comdat, thread-local; atomics; inline asm; operand bundles;
  // exception handling; the musttail call in @g.
  const std::set<std::string> expected = {
      "@ba",   "@sect", "@cd",  "@tls", "%la", "store",  "%cx",        "%rmw",
      "fence", "%asm",  "%bun", "%inv", "%lp", "resume", "indirectbr", "call",
  };
  EXPECT_EQ(by_llvm, expected);
}

}  // namespace
}  // namespace compiler_gym::observations
