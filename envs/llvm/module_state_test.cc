// Tests of module fingerprints, Canonicalize and CopyNameCounters on a small module written
// inline as IR, mutated in place one way at a time.
#include "envs/llvm/module_state.h"

#include <gtest/gtest.h>

#include <functional>

#include "envs/llvm/module_util.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"

namespace compiler_gym::llvm_env {
namespace {

constexpr char kModule[] = R"(
%struct.S = type { i32, [2 x i64] }
@g = global i32 7, align 4
@s = global %struct.S zeroinitializer
@table = global [2 x ptr] [ptr @g, ptr null]

declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

define i32 @f(i32 %a, i32 %b, ptr %p) {
entry:
  %s = add nsw i32 %a, %b
  %c = icmp slt i32 %s, 10
  br i1 %c, label %then, label %done
then:
  %v = load i32, ptr @g, align 4
  store i32 %v, ptr %p, align 4
  call void @llvm.memset.p0.i64(ptr %p, i8 0, i64 4, i1 false)
  br label %done
done:
  %r = phi i32 [ %s, %entry ], [ %v, %then ]
  ret i32 %r
}

define i32 @h(i32 %x) {
  %y = mul i32 %x, 3
  ret i32 %y
}
)";

struct Parsed {
  // Text IR needs a context that keeps names (NewContext() drops them).
  std::unique_ptr<llvm::LLVMContext> context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module;
  Parsed() {
    auto parsed = ParseModule(kModule, "test", *context);
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    module = std::move(*parsed);
  }
  llvm::Function& F() { return *module->getFunction("f"); }
  llvm::Instruction& Inst(const char* function, int index) {
    int i = 0;
    for (llvm::BasicBlock& block : *module->getFunction(function)) {
      for (llvm::Instruction& inst : block) {
        if (i++ == index) return inst;
      }
    }
    ADD_FAILURE() << "no instruction " << index;
    return *module->getFunction(function)->begin()->begin();
  }
};

// Each mutation must change the fingerprint, and only where it is: the module part for what is
// outside bodies, the body of @f (index 1: the memset declaration comes first) otherwise.
struct Mutation {
  const char* name;
  bool in_module;
  std::function<void(Parsed&)> apply;
};

class FingerprintMutation : public testing::TestWithParam<Mutation> {};

TEST_P(FingerprintMutation, Changes) {
  Parsed p;
  const ModuleFingerprint before = Fingerprint(*p.module);
  EXPECT_EQ(Fingerprint(*p.module), before) << "not stable";
  FingerprintCache cache;
  const ModuleFingerprint before_cached = Fingerprint(*p.module, &cache);
  EXPECT_EQ(Fingerprint(*p.module, &cache), before_cached) << "not stable with a cache";
  GetParam().apply(p);
  const ModuleFingerprint after = Fingerprint(*p.module);
  const ModuleFingerprint after_cached = Fingerprint(*p.module, &cache);
  if (GetParam().in_module) {
    EXPECT_NE(after.module, before.module);
    EXPECT_NE(after_cached.module, before_cached.module);
  } else {
    EXPECT_EQ(after.module, before.module);
    EXPECT_EQ(ChangedFunctions(before, after), std::vector<size_t>{1});
    // The cache reuses only bodies that did not change: it finds the same change.
    EXPECT_EQ(ChangedFunctions(before_cached, after_cached), std::vector<size_t>{1});
    EXPECT_EQ(after_cached, after);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Mutations, FingerprintMutation,
    testing::Values(
        Mutation{"nsw_flag", false,
                 [](Parsed& p) {
                   llvm::cast<llvm::BinaryOperator>(p.Inst("f", 0)).setHasNoSignedWrap(false);
                 }},
        Mutation{"predicate", false,
                 [](Parsed& p) {
                   llvm::cast<llvm::ICmpInst>(p.Inst("f", 1)).setPredicate(llvm::CmpInst::ICMP_SLE);
                 }},
        Mutation{
            "operand_order", false,
            [](Parsed& p) { llvm::cast<llvm::BinaryOperator>(p.Inst("f", 0)).swapOperands(); }},
        Mutation{"constant_operand", false,
                 [](Parsed& p) {
                   llvm::Instruction& cmp = p.Inst("f", 1);
                   cmp.setOperand(1, llvm::ConstantInt::get(cmp.getOperand(1)->getType(), 11));
                 }},
        Mutation{"alignment", false,
                 [](Parsed& p) {
                   llvm::cast<llvm::LoadInst>(p.Inst("f", 3)).setAlignment(llvm::Align(8));
                 }},
        Mutation{"volatile", false,
                 [](Parsed& p) { llvm::cast<llvm::StoreInst>(p.Inst("f", 4)).setVolatile(true); }},
        Mutation{"tail_call", false,
                 [](Parsed& p) { llvm::cast<llvm::CallInst>(p.Inst("f", 5)).setTailCall(true); }},
        Mutation{"call_attribute", false,
                 [](Parsed& p) {
                   llvm::cast<llvm::CallInst>(p.Inst("f", 5)).addFnAttr(llvm::Attribute::NoUnwind);
                 }},
        Mutation{"metadata", false,
                 [](Parsed& p) {
                   llvm::Instruction& load = p.Inst("f", 3);
                   load.setMetadata(llvm::LLVMContext::MD_nontemporal,
                                    llvm::MDNode::get(*p.context, {}));
                 }},
        Mutation{"instruction_order", false,
                 [](Parsed& p) { p.Inst("f", 4).moveBefore(&p.Inst("f", 3)); }},
        Mutation{"phi_block", false,
                 [](Parsed& p) {
                   auto& phi = llvm::cast<llvm::PHINode>(p.Inst("f", 7));
                   phi.setIncomingValue(0, phi.getIncomingValue(1));
                   phi.setIncomingValue(1, p.F().getArg(0));
                 }},
        Mutation{"global_initializer", true,
                 [](Parsed& p) {
                   llvm::GlobalVariable* g = p.module->getNamedGlobal("g");
                   g->setInitializer(llvm::ConstantInt::get(g->getValueType(), 8));
                 }},
        Mutation{"aggregate_initializer", true,
                 [](Parsed& p) {
                   llvm::GlobalVariable* table = p.module->getNamedGlobal("table");
                   auto* type = llvm::cast<llvm::ArrayType>(table->getValueType());
                   llvm::Constant* g = p.module->getNamedGlobal("g");
                   table->setInitializer(llvm::ConstantArray::get(type, {g, g}));
                 }},
        Mutation{"linkage", true,
                 [](Parsed& p) { p.F().setLinkage(llvm::GlobalValue::InternalLinkage); }},
        Mutation{"function_attribute", true,
                 [](Parsed& p) { p.F().addFnAttr(llvm::Attribute::NoUnwind); }},
        Mutation{"global_name", true,
                 [](Parsed& p) { p.module->getNamedGlobal("g")->setName("g2"); }},
        Mutation{"struct_name", true,
                 [](Parsed& p) {
                   llvm::StructType::getTypeByName(*p.context, "struct.S")->setName("renamed");
                 }},
        Mutation{"global_alignment", true,
                 [](Parsed& p) { p.module->getNamedGlobal("g")->setAlignment(llvm::Align(16)); }},
        Mutation{"function_order", true,
                 [](Parsed& p) {
                   auto& list = p.module->getFunctionList();
                   list.splice(list.begin(), list, p.module->getFunction("h")->getIterator());
                 }}),
    [](const testing::TestParamInfo<Mutation>& info) { return std::string(info.param.name); });

TEST(Fingerprint, IdenticalReplacementIsNoChange) {
  // A pass that deletes an instruction and creates an identical one (at another address)
  // changed nothing.
  Parsed p;
  const ModuleFingerprint before = Fingerprint(*p.module);
  llvm::Instruction& mul = p.Inst("h", 0);
  llvm::Instruction* copy = mul.clone();
  copy->insertBefore(&mul);
  mul.replaceAllUsesWith(copy);
  mul.eraseFromParent();
  EXPECT_EQ(Fingerprint(*p.module), before);
  FingerprintCache cache;
  EXPECT_EQ(Fingerprint(*p.module, &cache), before);
}

TEST(Canonicalize, ResetsIntrinsicAttributesAsTheBitcodeReaderDoes) {
  Parsed p;
  llvm::Function* memset = p.module->getFunction("llvm.memset.p0.i64");
  const llvm::AttributeList canonical =
      llvm::Intrinsic::getAttributes(*p.context, memset->getIntrinsicID());
  ASSERT_EQ(memset->getAttributes(), canonical);
  memset->addFnAttr(llvm::Attribute::MustProgress);
  ASSERT_NE(memset->getAttributes(), canonical);
  // A bitcode round trip drops the inferred attribute ...
  auto context = NewContext();
  auto copy = ParseModule(ModuleToBitcode(*p.module), "copy", *context);
  ASSERT_TRUE(copy.ok());
  EXPECT_FALSE(
      (*copy)->getFunction("llvm.memset.p0.i64")->hasFnAttribute(llvm::Attribute::MustProgress));
  // ... and so does Canonicalize, in place.
  Canonicalize(*p.module);
  EXPECT_EQ(memset->getAttributes(), canonical);
  EXPECT_EQ(memset->getAttributes().getAsString(llvm::AttributeList::FunctionIndex),
            (*copy)
                ->getFunction("llvm.memset.p0.i64")
                ->getAttributes()
                .getAsString(llvm::AttributeList::FunctionIndex));
}

TEST(Canonicalize, DropsAlignmentsThatBitcodeCannotHold) {
  Parsed p;
  llvm::CallInst& call = llvm::cast<llvm::CallInst>(p.Inst("f", 5));
  const llvm::Align huge(uint64_t{1} << 32);
  call.addParamAttr(0, llvm::Attribute::getWithAlignment(*p.context, huge));
  p.F().addParamAttr(2, llvm::Attribute::getWithAlignment(*p.context, huge));
  p.F().addParamAttr(1, llvm::Attribute::getWithAlignment(*p.context, llvm::Align(8)));
  auto context = NewContext();
  auto copy = ParseModule(ModuleToBitcode(*p.module), "copy", *context);
  ASSERT_TRUE(copy.ok());
  EXPECT_FALSE((*copy)->getFunction("f")->getParamAlign(2).has_value());  // LLVM's round trip
  Canonicalize(*p.module);
  EXPECT_FALSE(call.getParamAlign(0).has_value());
  EXPECT_FALSE(p.F().getParamAlign(2).has_value());
  EXPECT_EQ(p.F().getParamAlign(1), llvm::MaybeAlign(8));  // storable alignments stay
}

TEST(Canonicalize, RemovesDeadConstantUsersOfGlobals) {
  Parsed p;
  llvm::GlobalVariable* g = p.module->getNamedGlobal("g");
  const size_t uses = g->getNumUses();
  // A constant expression that nothing uses, as passes leave behind.
  llvm::Constant* dead = llvm::ConstantExpr::getGetElementPtr(
      llvm::Type::getInt8Ty(*p.context), g,
      llvm::ConstantInt::get(llvm::Type::getInt64Ty(*p.context), 1));
  ASSERT_EQ(g->getNumUses(), uses + 1);
  (void)dead;
  Canonicalize(*p.module);
  EXPECT_EQ(g->getNumUses(), uses);
}

}  // namespace
}  // namespace compiler_gym::llvm_env

namespace compiler_gym::llvm_env {
namespace {

TEST(CopyNameCounters, ACopyUniquifiesNamesAsTheOriginalDoes) {
  // Passes that made names unique and then deleted what they named (3 functions named "h",
  // 2 values named "y" in @f) leave counts behind but no names: a copy through bitcode would
  // pick "h.1" and "y1" next where the original picks "h.4" and "y3", unless the counts are
  // copied.
  Parsed p;
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(*p.context), false);
  for (int i = 0; i < 3; ++i) {
    llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, "h", *p.module)
        ->eraseFromParent();
  }
  llvm::Instruction& add = p.Inst("f", 0);
  for (int i = 0; i < 3; ++i) {
    llvm::Instruction* inst = add.clone();
    inst->insertAfter(&add);
    inst->setName("y");
    if (i > 0) inst->eraseFromParent();
  }
  auto next_names = [&](llvm::Module& m) {
    auto* fn = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, "h", m);
    llvm::Instruction& first = *m.getFunction("f")->getEntryBlock().begin();
    llvm::Instruction* inst = first.clone();
    inst->insertAfter(&first);
    inst->setName("y");
    return fn->getName().str() + " " + inst->getName().str();
  };
  auto copy_of = [&](llvm::LLVMContext& context) {
    auto copy = ParseModule(ModuleToBitcode(*p.module), "copy", context);
    EXPECT_TRUE(copy.ok());
    return std::move(copy).value();
  };
  llvm::LLVMContext plain_context, counted_context;
  auto plain = copy_of(plain_context);
  auto counted = copy_of(counted_context);
  ASSERT_TRUE(CopyNameCounters(*p.module, *counted));
  const std::string original = next_names(*p.module);
  EXPECT_EQ(original, "h.4 y3");
  EXPECT_EQ(next_names(*counted), original);
  EXPECT_NE(next_names(*plain), original);  // what the copy does without them
}

}  // namespace
}  // namespace compiler_gym::llvm_env
