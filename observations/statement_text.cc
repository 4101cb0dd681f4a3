// StatementText's writer: each statement written straight from the IR, types printed once per
// module, and LLVM's printer for the syntax the writer leaves to it.
#include "observations/statement_text.h"

#include <cctype>
#include <charconv>

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Attributes.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ModuleSlotTracker.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace compiler_gym::observations {

struct StatementText::Caches {
  llvm::DenseMap<const llvm::Type*, std::string> types;
  llvm::DenseMap<llvm::AttributeSet, std::string> attributes;
  std::unique_ptr<llvm::ModuleSlotTracker> slots;  // for LLVM's printer, made on first use
};

namespace {

std::string_view LinkageWithSpace(llvm::GlobalValue::LinkageTypes linkage) {
  using L = llvm::GlobalValue::LinkageTypes;
  switch (linkage) {
    case L::ExternalLinkage:
      return "";
    case L::AvailableExternallyLinkage:
      return "available_externally ";
    case L::LinkOnceAnyLinkage:
      return "linkonce ";
    case L::LinkOnceODRLinkage:
      return "linkonce_odr ";
    case L::WeakAnyLinkage:
      return "weak ";
    case L::WeakODRLinkage:
      return "weak_odr ";
    case L::AppendingLinkage:
      return "appending ";
    case L::InternalLinkage:
      return "internal ";
    case L::PrivateLinkage:
      return "private ";
    case L::ExternalWeakLinkage:
      return "extern_weak ";
    case L::CommonLinkage:
      return "common ";
  }
  return "";
}

// One statement into `out`. Each method returns false at syntax it does not write; the caller
// then drops what was appended and asks LLVM's printer.
class Writer {
 public:
  Writer(StatementText::Caches& caches, std::string& out) : caches_(caches), out_(out) {}

  bool Instruction(const llvm::Instruction& inst);
  bool Global(const llvm::GlobalVariable& global);

 private:
  void Type(const llvm::Type* type);
  void Attributes(llvm::AttributeSet set);
  void Name(char sigil, llvm::StringRef name);
  void Int(int64_t value);
  void Flags(const llvm::User& user);
  bool Value(const llvm::Value* value);
  bool Operand(const llvm::Value* value, bool with_type);
  bool Constant(const llvm::Constant* constant);
  bool Elements(const llvm::Constant* aggregate, unsigned count);
  bool Call(const llvm::CallInst& call);
  bool ShuffleMask(const llvm::ShuffleVectorInst& shuffle);
  bool Operands(const llvm::Instruction& inst);
  bool Opcode(const llvm::Instruction& inst);
  bool OperandsByKind(const llvm::Instruction& inst);
  bool Switch(const llvm::SwitchInst& branches);
  bool Phi(const llvm::PHINode& phi);
  bool Alloca(const llvm::AllocaInst& alloca);

  StatementText::Caches& caches_;
  std::string& out_;
};

// Types repeat on nearly every statement, so each is printed once. Type::print without details
// prints named structs by name and unnamed identified ones as %"type 0x..."; both normalize as
// the module printer's text does (a name to its inlined body, a number or quoted name to <%ID>).
void Writer::Type(const llvm::Type* type) {
  auto [it, inserted] = caches_.types.try_emplace(type);
  if (inserted) {
    llvm::raw_string_ostream os(it->second);
    type->print(os, /*IsForDebug=*/false, /*NoDetails=*/true);
  }
  out_ += it->second;
}

void Writer::Attributes(llvm::AttributeSet set) {
  auto [it, inserted] = caches_.attributes.try_emplace(set);
  if (inserted) {
    std::string& text = it->second;
    for (const llvm::Attribute& attribute : set) {
      if (!text.empty()) text += ' ';
      if (!attribute.isTypeAttribute()) {
        text += attribute.getAsString();
        continue;
      }
      text += llvm::Attribute::getNameFromAttrKind(attribute.getKindAsEnum());
      if (llvm::Type* type = attribute.getValueAsType()) {
        text += '(';
        llvm::raw_string_ostream os(text);
        type->print(os, /*IsForDebug=*/false, /*NoDetails=*/true);
        text += ')';
      }
    }
  }
  out_ += it->second;
}

// LLVM's quoting: a name that starts with a digit or holds anything but [a-zA-Z0-9._-] is quoted,
// with '\\', '"' and unprintable bytes as \XX.
void Writer::Name(char sigil, llvm::StringRef name) {
  out_ += sigil;
  bool quote = std::isdigit(static_cast<unsigned char>(name[0])) != 0;
  for (size_t i = 0; i < name.size() && !quote; ++i) {
    const unsigned char c = name[i];
    quote = !std::isalnum(c) && c != '-' && c != '.' && c != '_';
  }
  if (!quote) {
    out_.append(name.data(), name.size());
    return;
  }
  static constexpr char kHex[] = "0123456789ABCDEF";
  out_ += '"';
  for (const unsigned char c : name) {
    if (std::isprint(c) && c != '\\' && c != '"') {
      out_ += static_cast<char>(c);
    } else {
      out_ += '\\';
      out_ += kHex[c >> 4];
      out_ += kHex[c & 15];
    }
  }
  out_ += '"';
}

void Writer::Int(int64_t value) {
  char buffer[24];
  const auto end = std::to_chars(buffer, buffer + sizeof(buffer), value).ptr;
  out_.append(buffer, end);
}

// Flags in the order LLVM writes them after the opcode.
void Writer::Flags(const llvm::User& user) {
  if (const auto* fp = llvm::dyn_cast<llvm::FPMathOperator>(&user)) {
    if (const llvm::FastMathFlags flags = fp->getFastMathFlags(); flags.any()) {
      llvm::raw_string_ostream os(out_);
      flags.print(os);
    }
  }
  if (const auto* op = llvm::dyn_cast<llvm::OverflowingBinaryOperator>(&user)) {
    if (op->hasNoUnsignedWrap()) out_ += " nuw";
    if (op->hasNoSignedWrap()) out_ += " nsw";
  } else if (const auto* op = llvm::dyn_cast<llvm::PossiblyExactOperator>(&user)) {
    if (op->isExact()) out_ += " exact";
  } else if (const auto* op = llvm::dyn_cast<llvm::PossiblyDisjointInst>(&user)) {
    if (op->isDisjoint()) out_ += " disjoint";
  } else if (const auto* gep = llvm::dyn_cast<llvm::GEPOperator>(&user)) {
    if (gep->isInBounds()) {
      out_ += " inbounds";
    } else if (gep->hasNoUnsignedSignedWrap()) {
      out_ += " nusw";
    }
    if (gep->hasNoUnsignedWrap()) out_ += " nuw";
    if (const auto range = gep->getInRange()) {
      llvm::raw_string_ostream os(out_);
      os << " inrange(" << range->getLower() << ", " << range->getUpper() << ")";
    }
  } else if (const auto* op = llvm::dyn_cast<llvm::PossiblyNonNegInst>(&user)) {
    if (op->hasNonNeg()) out_ += " nneg";
  } else if (const auto* trunc = llvm::dyn_cast<llvm::TruncInst>(&user)) {
    if (trunc->hasNoUnsignedWrap()) out_ += " nuw";
    if (trunc->hasNoSignedWrap()) out_ += " nsw";
  }
}

bool Writer::Value(const llvm::Value* value) {
  if (value->hasName()) {
    Name(llvm::isa<llvm::GlobalValue>(value) ? '@' : '%', value->getName());
    return true;
  }
  if (llvm::isa<llvm::GlobalValue>(value)) {
    out_ += "@0";
    return true;
  }
  if (const auto* constant = llvm::dyn_cast<llvm::Constant>(value)) return Constant(constant);
  if (const auto* metadata = llvm::dyn_cast<llvm::MetadataAsValue>(value)) {
    // Nodes and strings are cut by the normalizer whatever their number or text; a value
    // wrapped in metadata is written with its type and would need more care.
    if (llvm::isa<llvm::ValueAsMetadata>(metadata->getMetadata()) ||
        llvm::isa<llvm::DIArgList>(metadata->getMetadata())) {
      return false;
    }
    out_ += "!0";
    return true;
  }
  if (llvm::isa<llvm::InlineAsm>(value)) return false;
  out_ += "%0";  // an unnamed argument, instruction or block
  return true;
}

bool Writer::Operand(const llvm::Value* value, bool with_type) {
  if (with_type) {
    Type(value->getType());
    out_ += ' ';
  }
  return Value(value);
}

// "type value" pairs separated by ", ".
bool Writer::Elements(const llvm::Constant* aggregate, unsigned count) {
  for (unsigned i = 0; i < count; ++i) {
    if (i > 0) out_ += ", ";
    if (!Operand(aggregate->getAggregateElement(i), true)) return false;
  }
  return true;
}

bool Writer::Constant(const llvm::Constant* constant) {
  // Vector-typed ConstantInt and ConstantFP are splats, which print in their own syntax.
  if (const auto* integer = llvm::dyn_cast<llvm::ConstantInt>(constant)) {
    if (!integer->getType()->isIntegerTy()) return false;
    if (integer->getType()->isIntegerTy(1)) {
      out_ += integer->isZero() ? "false" : "true";
    } else if (integer->getBitWidth() <= 64) {
      Int(integer->getSExtValue());
    } else {
      llvm::raw_string_ostream os(out_);
      integer->getValue().print(os, /*isSigned=*/true);
    }
    return true;
  }
  if (const auto* fp = llvm::dyn_cast<llvm::ConstantFP>(constant)) {
    if (fp->getType()->isVectorTy()) return false;
    out_ += "0.0";
    return true;
  }
  if (llvm::isa<llvm::ConstantAggregateZero>(constant)) {
    out_ += "zeroinitializer";
  } else if (llvm::isa<llvm::ConstantPointerNull>(constant)) {
    out_ += "null";
  } else if (llvm::isa<llvm::PoisonValue>(constant)) {  // a kind of UndefValue: test it first
    out_ += "poison";
  } else if (llvm::isa<llvm::UndefValue>(constant)) {
    out_ += "undef";
  } else if (llvm::isa<llvm::ConstantTokenNone>(constant)) {
    out_ += "none";
  } else if (const auto* data = llvm::dyn_cast<llvm::ConstantDataSequential>(constant)) {
    const bool is_array = llvm::isa<llvm::ConstantDataArray>(constant);
    if (is_array && data->isString()) {
      out_ += "c\"\"";
      return true;
    }
    // Elements straight from the data: getAggregateElement would look up a uniqued constant each.
    llvm::Type* element = data->getElementType();
    const unsigned bits = element->getScalarSizeInBits();
    out_ += is_array ? '[' : '<';
    for (unsigned i = 0; i < data->getNumElements(); ++i) {
      if (i > 0) out_ += ", ";
      Type(element);
      out_ += ' ';
      if (element->isIntegerTy()) {
        Int(llvm::SignExtend64(data->getElementAsInteger(i), bits));
      } else {
        out_ += "0.0";
      }
    }
    out_ += is_array ? ']' : '>';
  } else if (const auto* array = llvm::dyn_cast<llvm::ConstantArray>(constant)) {
    out_ += '[';
    if (!Elements(array, array->getNumOperands())) return false;
    out_ += ']';
  } else if (const auto* vector = llvm::dyn_cast<llvm::ConstantVector>(constant)) {
    out_ += '<';
    if (!Elements(vector, vector->getNumOperands())) return false;
    out_ += '>';
  } else if (const auto* structure = llvm::dyn_cast<llvm::ConstantStruct>(constant)) {
    const bool packed = structure->getType()->isPacked();
    const unsigned count = structure->getNumOperands();
    out_ += packed ? "<{" : "{";
    if (count > 0) {
      out_ += ' ';
      if (!Elements(structure, count)) return false;
      out_ += ' ';
    }
    out_ += packed ? "}>" : "}";
  } else if (const auto* expression = llvm::dyn_cast<llvm::ConstantExpr>(constant)) {
    if (expression->getOpcode() == llvm::Instruction::ShuffleVector) return false;
    out_ += expression->getOpcodeName();
    Flags(*expression);
    out_ += " (";
    if (const auto* gep = llvm::dyn_cast<llvm::GEPOperator>(expression)) {
      Type(gep->getSourceElementType());
      out_ += ", ";
    }
    for (unsigned i = 0; i < expression->getNumOperands(); ++i) {
      if (i > 0) out_ += ", ";
      if (!Operand(expression->getOperand(i), true)) return false;
    }
    if (expression->isCast()) {
      out_ += " to ";
      Type(expression->getType());
    }
    out_ += ')';
  } else {
    return false;  // block addresses, dso_local_equivalent, no_cfi, ptrauth, target none
  }
  return true;
}

bool Writer::Call(const llvm::CallInst& call) {
  const llvm::Value* callee = call.getCalledOperand();
  if (call.hasOperandBundles() || llvm::isa<llvm::InlineAsm>(callee) ||
      callee->getType()->getPointerAddressSpace() != 0 ||
      call.getModule()->getDataLayout().getProgramAddressSpace() != 0) {
    return false;
  }
  // O3 makes internal functions fastcc; the other conventions are target-specific.
  switch (call.getCallingConv()) {
    case llvm::CallingConv::C:
      break;
    case llvm::CallingConv::Fast:
      out_ += " fastcc";
      break;
    case llvm::CallingConv::Cold:
      out_ += " coldcc";
      break;
    default:
      return false;
  }
  const llvm::AttributeList attributes = call.getAttributes();
  if (attributes.hasRetAttrs()) {
    out_ += ' ';
    Attributes(attributes.getRetAttrs());
  }
  const llvm::FunctionType* type = call.getFunctionType();
  out_ += ' ';
  Type(type->isVarArg() ? type : type->getReturnType());
  out_ += ' ';
  if (!Value(callee)) return false;
  out_ += '(';
  for (unsigned i = 0; i < call.arg_size(); ++i) {
    if (i > 0) out_ += ", ";
    const llvm::Value* argument = call.getArgOperand(i);
    Type(argument->getType());
    if (const llvm::AttributeSet set = attributes.getParamAttrs(i); set.hasAttributes()) {
      out_ += ' ';
      Attributes(set);
    }
    out_ += ' ';
    if (!Value(argument)) return false;
  }
  out_ += ')';  // function attributes (#N) and metadata are cut by the normalizer
  return true;
}

// ", <4 x i32> <i32 0, i32 poison, ...>", with zeroinitializer and poison for uniform masks.
bool Writer::ShuffleMask(const llvm::ShuffleVectorInst& shuffle) {
  if (llvm::isa<llvm::ScalableVectorType>(shuffle.getType())) return false;
  const llvm::ArrayRef<int> mask = shuffle.getShuffleMask();
  out_ += ", <";
  Int(mask.size());
  out_ += " x i32> ";
  if (llvm::all_of(mask, [](int e) { return e == 0; })) {
    out_ += "zeroinitializer";
  } else if (llvm::all_of(mask, [](int e) { return e == llvm::PoisonMaskElem; })) {
    out_ += "poison";
  } else {
    out_ += '<';
    for (size_t i = 0; i < mask.size(); ++i) {
      out_ += i > 0 ? ", i32 " : "i32 ";
      if (mask[i] == llvm::PoisonMaskElem) {
        out_ += "poison";
      } else {
        Int(mask[i]);
      }
    }
    out_ += '>';
  }
  return true;
}

// The common form: "op type a, b" when all operands share a type, "op type a, type b" otherwise;
// loads and getelementptrs lead with the type they read.
bool Writer::Operands(const llvm::Instruction& inst) {
  if (const auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(&inst)) {
    out_ += ' ';
    Type(gep->getSourceElementType());
    out_ += ',';
  } else if (llvm::isa<llvm::LoadInst>(inst)) {
    out_ += ' ';
    Type(inst.getType());
    out_ += ',';
  }
  const llvm::Type* first = inst.getOperand(0)->getType();
  bool typed = llvm::isa<llvm::SelectInst>(inst) || llvm::isa<llvm::StoreInst>(inst) ||
               llvm::isa<llvm::ReturnInst>(inst) || llvm::isa<llvm::ShuffleVectorInst>(inst);
  for (unsigned i = 1; i < inst.getNumOperands() && !typed; ++i) {
    typed = inst.getOperand(i)->getType() != first;
  }
  if (!typed) {
    out_ += ' ';
    Type(first);
  }
  out_ += ' ';
  for (unsigned i = 0; i < inst.getNumOperands(); ++i) {
    if (i > 0) out_ += ", ";
    if (!Operand(inst.getOperand(i), typed)) return false;
  }
  return true;
}

// "  %x = tail opcode flags predicate": what every instruction starts with. False for musttail.
bool Writer::Opcode(const llvm::Instruction& inst) {
  out_ += "  ";
  if (inst.hasName()) {
    Name('%', inst.getName());
    out_ += " = ";
  } else if (!inst.getType()->isVoidTy()) {
    out_ += "%0 = ";
  }
  if (const auto* call = llvm::dyn_cast<llvm::CallInst>(&inst)) {
    if (call->isMustTailCall()) return false;
    if (call->isTailCall()) out_ += "tail ";
    if (call->isNoTailCall()) out_ += "notail ";
  }
  out_ += inst.getOpcodeName();
  if (const auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst); load && load->isVolatile()) {
    out_ += " volatile";
  }
  if (const auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst); store && store->isVolatile()) {
    out_ += " volatile";
  }
  Flags(inst);
  if (const auto* compare = llvm::dyn_cast<llvm::CmpInst>(&inst)) {
    out_ += ' ';
    out_ += llvm::CmpInst::getPredicateName(compare->getPredicate());
  }
  return true;
}

bool Writer::Switch(const llvm::SwitchInst& branches) {
  out_ += ' ';
  bool ok = Operand(branches.getCondition(), true);
  out_ += ", ";
  ok = ok && Operand(branches.getDefaultDest(), true);
  out_ += " [";
  for (const auto& target : branches.cases()) {
    out_ += "\n    ";
    ok = ok && Operand(target.getCaseValue(), true);
    out_ += ", ";
    ok = ok && Operand(target.getCaseSuccessor(), true);
  }
  out_ += "\n  ]";
  return ok;
}

bool Writer::Phi(const llvm::PHINode& phi) {
  bool ok = true;
  out_ += ' ';
  Type(phi.getType());
  out_ += ' ';
  for (unsigned i = 0; i < phi.getNumIncomingValues() && ok; ++i) {
    out_ += i > 0 ? ", [ " : "[ ";
    ok = Value(phi.getIncomingValue(i));
    out_ += ", ";
    ok = ok && Value(phi.getIncomingBlock(i));
    out_ += " ]";
  }
  return ok;
}

bool Writer::Alloca(const llvm::AllocaInst& alloca) {
  if (alloca.isUsedWithInAlloca() || alloca.isSwiftError()) return false;
  bool ok = true;
  out_ += ' ';
  Type(alloca.getAllocatedType());
  const llvm::Value* size = alloca.getArraySize();
  if (alloca.isArrayAllocation() || !size->getType()->isIntegerTy(32)) {
    out_ += ", ";
    ok = Operand(size, true);
  }
  out_ += ", align ";
  Int(alloca.getAlign().value());
  if (const unsigned space = alloca.getAddressSpace(); space != 0) {
    out_ += ", addrspace(";
    Int(space);
    out_ += ')';
  }
  return ok;
}

// What follows the opcode, in the syntax of the instruction's kind (the common form last).
bool Writer::OperandsByKind(const llvm::Instruction& inst) {
  bool ok = true;
  if (const auto* call = llvm::dyn_cast<llvm::CallInst>(&inst)) {
    ok = Call(*call);
  } else if (const auto* branch = llvm::dyn_cast<llvm::BranchInst>(&inst);
             branch && branch->isConditional()) {
    out_ += ' ';
    ok = Operand(branch->getCondition(), true);
    for (unsigned s = 0; s < 2 && ok; ++s) {
      out_ += ", ";
      ok = Operand(branch->getSuccessor(s), true);
    }
  } else if (const auto* branches = llvm::dyn_cast<llvm::SwitchInst>(&inst)) {
    ok = Switch(*branches);
  } else if (const auto* phi = llvm::dyn_cast<llvm::PHINode>(&inst)) {
    ok = Phi(*phi);
  } else if (const auto* extract = llvm::dyn_cast<llvm::ExtractValueInst>(&inst)) {
    out_ += ' ';
    ok = Operand(extract->getAggregateOperand(), true);
    for (const unsigned index : extract->indices()) {
      out_ += ", ";
      Int(index);
    }
  } else if (const auto* insert = llvm::dyn_cast<llvm::InsertValueInst>(&inst)) {
    out_ += ' ';
    ok = Operand(insert->getAggregateOperand(), true);
    out_ += ", ";
    ok = ok && Operand(insert->getInsertedValueOperand(), true);
    for (const unsigned index : insert->indices()) {
      out_ += ", ";
      Int(index);
    }
  } else if (llvm::isa<llvm::ReturnInst>(inst) && inst.getNumOperands() == 0) {
    out_ += " void";
  } else if (const auto* alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst)) {
    ok = Alloca(*alloca);
  } else if (llvm::isa<llvm::CastInst>(inst)) {
    out_ += ' ';
    ok = Operand(inst.getOperand(0), true);
    out_ += " to ";
    Type(inst.getType());
  } else if (llvm::isa<llvm::VAArgInst>(inst)) {
    out_ += ' ';
    ok = Operand(inst.getOperand(0), true);
    out_ += ", ";
    Type(inst.getType());
  } else if (inst.getNumOperands() > 0) {
    ok = Operands(inst);
  }
  return ok;
}

bool Writer::Instruction(const llvm::Instruction& inst) {
  if (inst.isAtomic() || inst.isEHPad() || llvm::isa<llvm::InvokeInst>(inst) ||
      llvm::isa<llvm::CallBrInst>(inst) || llvm::isa<llvm::IndirectBrInst>(inst) ||
      llvm::isa<llvm::ResumeInst>(inst) || llvm::isa<llvm::CatchReturnInst>(inst) ||
      llvm::isa<llvm::CleanupReturnInst>(inst)) {
    return false;
  }
  if (!Opcode(inst)) return false;
  bool ok = OperandsByKind(inst);
  if (const auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
    out_ += ", align ";
    Int(load->getAlign().value());
  } else if (const auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
    out_ += ", align ";
    Int(store->getAlign().value());
  } else if (const auto* shuffle = llvm::dyn_cast<llvm::ShuffleVectorInst>(&inst)) {
    ok = ok && ShuffleMask(*shuffle);
  }
  return ok;  // metadata attachments are cut by the normalizer
}

bool Writer::Global(const llvm::GlobalVariable& global) {
  if (!global.hasInitializer() || global.hasSection() || global.hasPartition() ||
      global.hasComdat() || global.isThreadLocal() || global.hasSanitizerMetadata() ||
      global.getCodeModel() || global.isExternallyInitialized() ||
      global.getDLLStorageClass() != llvm::GlobalValue::DefaultStorageClass ||
      global.getAddressSpace() != 0) {
    return false;
  }
  if (!Value(&global)) return false;
  out_ += " = ";
  out_ += LinkageWithSpace(global.getLinkage());
  if (global.isDSOLocal() && !global.isImplicitDSOLocal()) out_ += "dso_local ";
  if (global.hasHiddenVisibility()) out_ += "hidden ";
  if (global.hasProtectedVisibility()) out_ += "protected ";
  switch (global.getUnnamedAddr()) {
    case llvm::GlobalValue::UnnamedAddr::None:
      break;
    case llvm::GlobalValue::UnnamedAddr::Local:
      out_ += "local_unnamed_addr ";
      break;
    case llvm::GlobalValue::UnnamedAddr::Global:
      out_ += "unnamed_addr ";
      break;
  }
  out_ += global.isConstant() ? "constant " : "global ";
  Type(global.getValueType());
  out_ += ' ';
  if (!Value(global.getInitializer())) return false;
  if (const llvm::MaybeAlign align = global.getAlign()) {
    out_ += ", align ";
    Int(align->value());
  }
  return true;  // attributes (#N) and metadata attachments are cut by the normalizer
}

}  // namespace

StatementText::StatementText(const llvm::Module& module)
    : module_(module), caches_(std::make_unique<Caches>()) {}

StatementText::~StatementText() = default;

void StatementText::Append(const llvm::Value& value, std::string& out) {
  const size_t start = out.size();
  Writer writer(*caches_, out);
  const auto* global = llvm::dyn_cast<llvm::GlobalVariable>(&value);
  if (global != nullptr ? writer.Global(*global)
                        : writer.Instruction(llvm::cast<llvm::Instruction>(value))) {
    return;
  }
  out.resize(start);
  ++printed_by_llvm_;
  if (!caches_->slots) caches_->slots = std::make_unique<llvm::ModuleSlotTracker>(&module_);
  llvm::raw_string_ostream os(out);
  value.print(os, *caches_->slots);
}

}  // namespace compiler_gym::observations
