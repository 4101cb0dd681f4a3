// Tests of ModuleSnapshot: a module changed one way at a time is put back to its snapshot, byte
// for byte as bitcode with use lists, by the kind of restore the change calls for.
#include "envs/llvm/module_snapshot.h"

#include <gtest/gtest.h>

#include "envs/llvm/module_util.h"
#include "envs/llvm/passes.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

namespace compiler_gym::llvm_env {
namespace {

// @g has uses in @f (twice) and @h, in an order no clone reproduces by itself: the uses
// were made in the order @h, @f, and a clone walks @f first.
constexpr char kModule[] = R"(
%struct.S = type { i32, [2 x i64] }
@g = global i32 7, align 4
@s = global %struct.S zeroinitializer
@table = global [2 x ptr] [ptr @g, ptr null]

define i32 @f(i32 %a, i32 %b, ptr %p) {
entry:
  %s = add nsw i32 %a, %b
  %c = icmp slt i32 %s, 10
  br i1 %c, label %then, label %done
then:
  %v = load i32, ptr @g, align 4
  %w = load i32, ptr getelementptr inbounds (%struct.S, ptr @s, i64 0, i32 0), align 4
  %x = add i32 %v, %w
  store i32 %x, ptr @g, align 4
  br label %done
done:
  %r = phi i32 [ %s, %entry ], [ %x, %then ]
  %t = add i32 %r, %s
  ret i32 %t
}

define i32 @h(i32 %x) {
  %l = load i32, ptr @g, align 4
  %y = mul i32 %x, %l
  %z = call i32 @f(i32 %y, i32 %l, ptr @g)
  ret i32 %z
}
)";

struct Fixture {
  std::unique_ptr<llvm::LLVMContext> context = NewContext();
  std::unique_ptr<llvm::Module> module;
  FingerprintCache cache;
  std::unique_ptr<ModuleSnapshot> snapshot;
  std::string saved;  // the snapshot's bitcode, use lists included

  Fixture() {
    // Text IR needs a context that keeps names; an env's module is read from bitcode.
    llvm::LLVMContext text_context;
    auto parsed = ParseModule(kModule, "test", text_context);
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    auto reread = ParseModule(ModuleToBitcode(**parsed, true), "bitcode", *context);
    EXPECT_TRUE(reread.ok());
    module = std::move(*reread);
    saved = ModuleToBitcode(*module, true);
    snapshot = ModuleSnapshot::Take(*module, Fingerprint(*module, &cache), cache);
    EXPECT_NE(snapshot, nullptr);
  }

  ModuleSnapshot::Restored Restore() {
    Canonicalize(*module);
    return snapshot->Restore(module, Fingerprint(*module, &cache), cache);
  }

  // The module is the snapshot's again: as bitcode with use lists, and its fingerprint.
  void ExpectRestored() {
    EXPECT_EQ(ModuleToBitcode(*module, true), saved);
    llvm::LLVMContext other;
    auto expected = ParseModule(saved, "saved", other);
    ASSERT_TRUE(expected.ok());
    EXPECT_TRUE(SameUseLists(*module, **expected));
    EXPECT_EQ(Fingerprint(*module, &cache), snapshot->fingerprint());
  }

  llvm::Function& F(const char* name) { return *module->getFunction(name); }
};

TEST(ModuleSnapshot, PutsBackTheFunctionsAPassChanged) {
  Fixture t;
  ASSERT_TRUE(RunPipeline(*t.module, nullptr, "function(instcombine,simplifycfg)").ok());
  ASSERT_NE(ModuleToBitcode(*t.module, true), t.saved);
  EXPECT_EQ(t.Restore(), ModuleSnapshot::Restored::kFunctions);
  t.ExpectRestored();
  // Twice from the same snapshot, the second time over bodies it put back itself.
  ASSERT_TRUE(RunPipeline(*t.module, nullptr, "function(instcombine)").ok());
  EXPECT_EQ(t.Restore(), ModuleSnapshot::Restored::kFunctions);
  t.ExpectRestored();
}

TEST(ModuleSnapshot, SortsUseListsAChangeLeftInAnotherOrder) {
  Fixture t;
  // Moves @g's use in %v to the front of @g's use list without changing any body.
  llvm::Instruction& load = *t.F("f").getEntryBlock().getNextNode()->begin();
  llvm::Value* g = load.getOperand(0);
  load.setOperand(0, llvm::ConstantPointerNull::get(llvm::PointerType::get(*t.context, 0)));
  load.setOperand(0, g);
  ASSERT_NE(ModuleToBitcode(*t.module, true), t.saved);
  EXPECT_EQ(t.Restore(), ModuleSnapshot::Restored::kFunctions);
  t.ExpectRestored();
  // And a local value's: %s's use in %c to the front of %s's list.
  llvm::Instruction& compare = *std::next(t.F("f").getEntryBlock().begin());
  llvm::Value* s = compare.getOperand(0);
  compare.setOperand(0, compare.getOperand(1));
  compare.setOperand(0, s);
  ASSERT_NE(ModuleToBitcode(*t.module, true), t.saved);
  EXPECT_EQ(t.Restore(), ModuleSnapshot::Restored::kFunctions);
  t.ExpectRestored();
}

TEST(ModuleSnapshot, PutsBackHeadersInPlace) {
  Fixture t;
  t.module->getGlobalVariable("g")->setInitializer(
      llvm::ConstantInt::get(llvm::Type::getInt32Ty(*t.context), 8));
  t.F("h").addFnAttr(llvm::Attribute::NoUnwind);
  t.F("f").setLinkage(llvm::GlobalValue::InternalLinkage);
  ASSERT_TRUE(RunPipeline(*t.module, nullptr, "function(instcombine)").ok());
  EXPECT_EQ(t.Restore(), ModuleSnapshot::Restored::kFunctions);
  t.ExpectRestored();
}

TEST(ModuleSnapshot, ClonesTheWholeModuleWhenGlobalValuesCameOrWent) {
  Fixture t;
  new llvm::GlobalVariable(*t.module, llvm::Type::getInt32Ty(*t.context), false,
                           llvm::GlobalValue::InternalLinkage, nullptr, "extra");
  ASSERT_TRUE(RunPipeline(*t.module, nullptr, "function(instcombine)").ok());
  EXPECT_EQ(t.Restore(), ModuleSnapshot::Restored::kModule);
  t.ExpectRestored();
  // And function by function from the clone.
  ASSERT_TRUE(RunPipeline(*t.module, nullptr, "function(simplifycfg)").ok());
  EXPECT_EQ(t.Restore(), ModuleSnapshot::Restored::kFunctions);
  t.ExpectRestored();
}

TEST(ModuleSnapshot, LeavesAChangedContextToTheCaller) {
  {
    Fixture t;  // a struct type renamed: a clone in the same context would keep the name
    llvm::StructType::getTypeByName(*t.context, "struct.S")->setName("struct.T");
    EXPECT_EQ(t.Restore(), ModuleSnapshot::Restored::kContext);
  }
  {
    Fixture t;  // a body using a struct type the snapshot did not know
    auto* fresh =
        llvm::StructType::create(*t.context, {llvm::Type::getInt64Ty(*t.context)}, "struct.New");
    llvm::IRBuilder<> builder(&*t.F("h").getEntryBlock().begin());
    builder.CreateAlloca(fresh);
    EXPECT_EQ(t.Restore(), ModuleSnapshot::Restored::kContext);
  }
  {
    Fixture t;  // a metadata kind registered
    t.context->getMDKindID("compiler_gym.test.new_kind");
    EXPECT_EQ(t.Restore(), ModuleSnapshot::Restored::kContext);
  }
}

TEST(ModuleSnapshot, TakesNoSnapshotOfAModuleWithDebugInformation) {
  Fixture t;
  t.module->getOrInsertNamedMetadata("llvm.dbg.cu");
  EXPECT_EQ(ModuleSnapshot::Take(*t.module, Fingerprint(*t.module), t.cache), nullptr);
}

}  // namespace
}  // namespace compiler_gym::llvm_env
