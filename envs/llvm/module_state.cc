// Module fingerprints (one walk that numbers local values by position and hashes what the
// bitcode holds), Canonicalize, and CopyNameCounters through LLVM 19's symbol table layout.
#include "envs/llvm/module_state.h"

#include <limits>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalIFunc.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/ValueSymbolTable.h"

namespace compiler_gym::llvm_env {

namespace {

// Value::SubclassData holds what each kind of instruction or constant keeps beside its operands
// (predicates, alignments, volatility, atomic orderings, calling conventions, tail-call kinds,
// constant expression opcodes). It is protected; a pointer to the member, named through a
// derived class, reads it for every kind at once instead of one accessor per kind.
struct SubclassDataAccess : llvm::Value {
  using llvm::Value::getSubclassDataFromValue;
};
constexpr auto kSubclassData = &SubclassDataAccess::getSubclassDataFromValue;

// Order-sensitive 64-bit mixing; fast, not cryptographic (nothing adversarial compares these).
class Hasher {
 public:
  void Add(uint64_t v) {
    h_ = (h_ ^ v) * 0x9E3779B97F4A7C15ull;
    h_ ^= h_ >> 31;
  }
  void Add(const void* p) { Add(reinterpret_cast<uintptr_t>(p)); }
  void Add(llvm::StringRef s) { Add(static_cast<uint64_t>(llvm::hash_value(s))); }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0x243F6A8885A308D3ull;
};

class Walker {
 public:
  explicit Walker(const llvm::Module& module) {
    uint32_t n = 0;
    for (const llvm::GlobalValue& gv : module.global_values()) global_ordinal_[&gv] = n++;
  }

  uint64_t ModuleHeader(const llvm::Module& module) {
    Hasher h;
    h.Add(llvm::StringRef(module.getTargetTriple()));
    h.Add(llvm::StringRef(module.getDataLayoutStr()));
    h.Add(llvm::StringRef(module.getModuleInlineAsm()));
    for (const llvm::NamedMDNode& named : module.named_metadata()) {
      h.Add(named.getName());
      for (const llvm::MDNode* node : named.operands()) h.Add(node);
    }
    for (const llvm::GlobalVariable& gv : module.globals()) {
      h.Add(uint64_t{1});
      GlobalHeader(gv, h);
      h.Add(gv.isConstant() | gv.isExternallyInitialized() << 1 | gv.hasInitializer() << 2);
      h.Add(static_cast<uint64_t>(gv.getThreadLocalMode()));
      if (gv.hasInitializer()) h.Add(Constant(gv.getInitializer()));
      h.Add(gv.getCodeModel() ? 1 + static_cast<uint64_t>(*gv.getCodeModel()) : 0);
      for (const llvm::Attribute& attribute : gv.getAttributes()) h.Add(attribute.getRawPointer());
    }
    for (const llvm::Function& f : module) {
      h.Add(uint64_t{2});
      GlobalHeader(f, h);
      h.Add(Type(f.getFunctionType()));
      h.Add(f.getAttributes().getRawPointer());
      h.Add(static_cast<uint64_t>(f.getCallingConv()));
      h.Add(f.hasGC() ? f.getGC() : llvm::StringRef());
      h.Add(f.hasPersonalityFn() ? Constant(f.getPersonalityFn()) : 0);
      h.Add(f.hasPrefixData() ? Constant(f.getPrefixData()) : 0);
      h.Add(f.hasPrologueData() ? Constant(f.getPrologueData()) : 0);
    }
    for (const llvm::GlobalAlias& alias : module.aliases()) {
      h.Add(uint64_t{3});
      GlobalHeader(alias, h);
      h.Add(Constant(alias.getAliasee()));
    }
    for (const llvm::GlobalIFunc& ifunc : module.ifuncs()) {
      h.Add(uint64_t{4});
      GlobalHeader(ifunc, h);
      h.Add(Constant(ifunc.getResolver()));
    }
    return h.value();
  }

  // The quick hash: like Body(), but local values and data constants (which live as long as
  // their context) are named by address, so no numbering is needed. Constant expressions and
  // aggregates can be destroyed and their address reused, so they are still hashed by content.
  // It also covers the order of the local values' use lists, which passes read (a fork keeps
  // it) and which a pass can change without changing the body (a use set to what it was moves
  // to the front), so that a snapshot restores such a function too (ModuleSnapshot).
  uint64_t BodyByAddress(const llvm::Function& f) {
    Hasher h;
    auto uses = [&h](const llvm::Value& value) {
      for (const llvm::Use& use : value.uses()) {
        h.Add(use.getUser());
        h.Add(uint64_t{use.getOperandNo()});
      }
    };
    for (const llvm::Argument& arg : f.args()) uses(arg);
    for (const llvm::BasicBlock& block : f) {
      h.Add(&block);
      uses(block);
      for (const llvm::Instruction& inst : block) {
        h.Add(&inst);
        uses(inst);
        InstructionHeader(inst, h);
        for (const llvm::Use& operand : inst.operands()) {
          const llvm::Value* value = operand.get();
          const bool by_address = !llvm::isa<llvm::Constant>(value) ||
                                  llvm::isa<llvm::ConstantData>(value) ||
                                  llvm::isa<llvm::GlobalValue>(value);
          h.Add(by_address ? reinterpret_cast<uintptr_t>(value)
                           : Constant(llvm::cast<llvm::Constant>(value)));
        }
        InstructionProperties(inst, h, /*by_address=*/true);
      }
    }
    return h.value();
  }

  uint64_t Body(const llvm::Function& f) {
    if (f.isDeclaration()) return 0;
    // Positions of the function's local values, so that operands name them by position.
    local_ordinal_.clear();
    uint32_t n = 0;
    for (const llvm::Argument& arg : f.args()) local_ordinal_[&arg] = n++;
    for (const llvm::BasicBlock& block : f) {
      local_ordinal_[&block] = n++;
      for (const llvm::Instruction& inst : block) local_ordinal_[&inst] = n++;
    }
    Hasher h;
    for (const llvm::BasicBlock& block : f) {
      h.Add(uint64_t{0xB10C});
      for (const llvm::Instruction& inst : block) Instruction(inst, h);
    }
    return h.value();
  }

 private:
  void GlobalHeader(const llvm::GlobalValue& gv, Hasher& h) {
    h.Add(gv.getName());
    h.Add(Type(gv.getValueType()));
    h.Add(static_cast<uint64_t>(gv.getLinkage()) | static_cast<uint64_t>(gv.getVisibility()) << 8 |
          static_cast<uint64_t>(gv.getDLLStorageClass()) << 16 |
          static_cast<uint64_t>(gv.getUnnamedAddr()) << 24 |
          static_cast<uint64_t>(gv.isDSOLocal()) << 32 |
          static_cast<uint64_t>(gv.getAddressSpace()) << 40);
    h.Add(gv.hasPartition() ? gv.getPartition() : llvm::StringRef());
    if (const auto* object = llvm::dyn_cast<llvm::GlobalObject>(&gv)) {
      h.Add(object->getAlign() ? object->getAlign()->value() : 0);
      h.Add(object->hasSection() ? object->getSection() : llvm::StringRef());
      h.Add(object->getComdat());
      Metadata(*object, h);
    }
  }

  template <typename T>
  void Metadata(const T& value, Hasher& h) {
    if (!value.hasMetadata()) return;
    llvm::SmallVector<std::pair<unsigned, llvm::MDNode*>, 4> attached;
    value.getAllMetadata(attached);
    for (const auto& [kind, node] : attached) {
      h.Add(kind);
      h.Add(node);
    }
  }

  void Instruction(const llvm::Instruction& inst, Hasher& h) {
    InstructionHeader(inst, h);
    for (const llvm::Use& operand : inst.operands()) h.Add(Operand(operand.get()));
    InstructionProperties(inst, h, /*by_address=*/false);
  }

  void InstructionHeader(const llvm::Instruction& inst, Hasher& h) {
    h.Add(static_cast<uint64_t>(inst.getValueID()) |
          uint64_t{inst.getRawSubclassOptionalData()} << 16 |
          uint64_t{(inst.*kSubclassData)()} << 32);
    h.Add(Type(inst.getType()));
  }

  // What an instruction holds beside its operands.
  void InstructionProperties(const llvm::Instruction& inst, Hasher& h, bool by_address) {
    if (const auto* phi = llvm::dyn_cast<llvm::PHINode>(&inst)) {
      for (const llvm::BasicBlock* block : phi->blocks()) {
        h.Add(by_address ? reinterpret_cast<uintptr_t>(block) : local_ordinal_.lookup(block));
      }
    } else if (const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
      h.Add(Type(call->getFunctionType()));
      h.Add(call->getAttributes().getRawPointer());
      for (unsigned i = 0; i < call->getNumOperandBundles(); ++i) {
        h.Add(call->getOperandBundleAt(i).getTagID());
      }
    } else if (const auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(&inst)) {
      h.Add(Type(gep->getSourceElementType()));
    } else if (const auto* alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst)) {
      h.Add(Type(alloca->getAllocatedType()));
    } else if (const auto* shuffle = llvm::dyn_cast<llvm::ShuffleVectorInst>(&inst)) {
      for (int element : shuffle->getShuffleMask()) h.Add(static_cast<uint64_t>(element));
    } else if (const auto* extract = llvm::dyn_cast<llvm::ExtractValueInst>(&inst)) {
      for (unsigned index : extract->getIndices()) h.Add(index);
    } else if (const auto* insert = llvm::dyn_cast<llvm::InsertValueInst>(&inst)) {
      for (unsigned index : insert->getIndices()) h.Add(index);
    }
    Metadata(inst, h);
  }

  uint64_t Operand(const llvm::Value* value) {
    if (const auto* constant = llvm::dyn_cast<llvm::Constant>(value)) return Constant(constant);
    if (const auto* wrapper = llvm::dyn_cast<llvm::MetadataAsValue>(value)) {
      return reinterpret_cast<uintptr_t>(wrapper->getMetadata());
    }
    // Arguments, blocks and instructions of this function (inline asm is a constant-like
    // uniqued value: its address identifies it).
    auto it = local_ordinal_.find(value);
    if (it != local_ordinal_.end()) return 0x10000 + it->second;
    return reinterpret_cast<uintptr_t>(value);
  }

  // Constants by content: a pass may destroy a constant expression and create another at the
  // same address, so an address says nothing about what a constant is after a pass.
  uint64_t Constant(const llvm::Constant* c) {
    if (auto it = constant_hash_.find(c); it != constant_hash_.end()) return it->second;
    Hasher h;
    h.Add(static_cast<uint64_t>(c->getValueID()) | uint64_t{c->getRawSubclassOptionalData()} << 16 |
          uint64_t{(c->*kSubclassData)()} << 32);
    h.Add(Type(c->getType()));
    if (const auto* gv = llvm::dyn_cast<llvm::GlobalValue>(c)) {
      h.Add(global_ordinal_.lookup(gv));
    } else if (const auto* i = llvm::dyn_cast<llvm::ConstantInt>(c)) {
      h.Add(static_cast<uint64_t>(llvm::hash_value(i->getValue())));
    } else if (const auto* fp = llvm::dyn_cast<llvm::ConstantFP>(c)) {
      h.Add(static_cast<uint64_t>(llvm::hash_value(fp->getValueAPF().bitcastToAPInt())));
    } else if (const auto* data = llvm::dyn_cast<llvm::ConstantDataSequential>(c)) {
      h.Add(data->getRawDataValues());
    } else if (const auto* address = llvm::dyn_cast<llvm::BlockAddress>(c)) {
      h.Add(global_ordinal_.lookup(address->getFunction()));
      uint64_t position = 0;
      for (const llvm::BasicBlock& block : *address->getFunction()) {
        if (&block == address->getBasicBlock()) break;
        ++position;
      }
      h.Add(position);
    } else {
      if (const auto* gep = llvm::dyn_cast<llvm::GEPOperator>(c)) {
        h.Add(Type(gep->getSourceElementType()));
      }
      if (const auto* expr = llvm::dyn_cast<llvm::ConstantExpr>(c);
          expr != nullptr && expr->getOpcode() == llvm::Instruction::ShuffleVector) {
        for (int element : expr->getShuffleMask()) h.Add(static_cast<uint64_t>(element));
      }
      for (const llvm::Use& operand : c->operands()) {
        h.Add(Constant(llvm::cast<llvm::Constant>(operand.get())));
      }
    }
    constant_hash_[c] = h.value();
    return h.value();
  }

  // Types live as long as their context, so an address identifies one, except that named
  // struct types can be renamed in place (-strip-nondebug does): their names, and those of the
  // structs inside aggregates, are part of a type's hash.
  uint64_t Type(llvm::Type* type) {
    if (type->getNumContainedTypes() == 0) return reinterpret_cast<uintptr_t>(type);
    if (auto it = type_hash_.find(type); it != type_hash_.end()) return it->second;
    Hasher h;
    h.Add(type);
    if (auto* s = llvm::dyn_cast<llvm::StructType>(type); s != nullptr && s->hasName()) {
      h.Add(s->getName());
    }
    // With opaque pointers no type contains itself, so this recursion ends.
    for (llvm::Type* contained : type->subtypes()) h.Add(Type(contained));
    type_hash_[type] = h.value();
    return h.value();
  }

  llvm::DenseMap<const llvm::GlobalValue*, uint32_t> global_ordinal_;
  llvm::DenseMap<const llvm::Type*, uint64_t> type_hash_;
  llvm::DenseMap<const llvm::Value*, uint32_t> local_ordinal_;
  llvm::DenseMap<const llvm::Constant*, uint64_t> constant_hash_;
};

// The bitcode reader reads an alignment attribute into 32 bits, so the largest alignment
// LLVM 19 allows, 2^32 (which -attributor and -function-attrs infer for null pointers), does
// not survive a round trip: it reads back as no alignment.
class UnstorableAlignments {
 public:
  explicit UnstorableAlignments(llvm::LLVMContext& context) : context_(context) {}

  llvm::AttributeList Fix(llvm::AttributeList list) {
    if (list.isEmpty()) return list;
    auto [it, inserted] = fixed_.try_emplace(list.getRawPointer(), list);
    if (!inserted) return it->second;
    llvm::AttributeList out = list;
    for (unsigned index : list.indexes()) {
      const llvm::MaybeAlign align = list.getAttributes(index).getAlignment();
      if (align && align->value() > std::numeric_limits<uint32_t>::max()) {
        out = out.removeAttributeAtIndex(context_, index, llvm::Attribute::Alignment);
      }
    }
    it->second = out;
    return out;
  }

 private:
  llvm::LLVMContext& context_;
  llvm::DenseMap<void*, llvm::AttributeList> fixed_;
};

}  // namespace

ModuleFingerprint Fingerprint(const llvm::Module& module, FingerprintCache* cache) {
  Walker walker(module);
  ModuleFingerprint out;
  out.module = walker.ModuleHeader(module);
  out.bodies.reserve(module.size());
  for (const llvm::Function& f : module) {
    if (cache == nullptr || f.isDeclaration()) {
      out.bodies.push_back(walker.Body(f));
      continue;
    }
    const uint64_t by_address = walker.BodyByAddress(f);
    FingerprintCache::Entry& entry = cache->bodies[&f];
    if (entry.by_address != by_address || entry.body == 0) {
      entry = {by_address, walker.Body(f)};
    }
    out.bodies.push_back(entry.body);
  }
  return out;
}

uint64_t ModuleHeaderHash(const llvm::Module& module) {
  Walker walker(module);
  return walker.ModuleHeader(module);
}

uint64_t RecordBody(const llvm::Function& function, uint64_t body, FingerprintCache& cache) {
  Walker walker(*function.getParent());
  const uint64_t by_address = walker.BodyByAddress(function);
  cache.bodies[&function] = {by_address, body};
  return by_address;
}

std::vector<size_t> ChangedFunctions(const ModuleFingerprint& before,
                                     const ModuleFingerprint& after) {
  std::vector<size_t> changed;
  for (size_t i = 0; i < after.bodies.size(); ++i) {
    if (i >= before.bodies.size() || before.bodies[i] != after.bodies[i]) changed.push_back(i);
  }
  return changed;
}

void Canonicalize(llvm::Module& module) {
  UnstorableAlignments alignments(module.getContext());
  for (llvm::Function& f : module) {
    if (f.isIntrinsic()) {
      const llvm::AttributeList canonical =
          llvm::Intrinsic::getAttributes(module.getContext(), f.getIntrinsicID());
      if (f.getAttributes() != canonical) f.setAttributes(canonical);
    } else if (llvm::AttributeList fixed = alignments.Fix(f.getAttributes());
               fixed != f.getAttributes()) {
      f.setAttributes(fixed);
    }
    for (llvm::BasicBlock& block : f) {
      for (llvm::Instruction& inst : block) {
        auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
        if (call == nullptr) continue;
        if (llvm::AttributeList fixed = alignments.Fix(call->getAttributes());
            fixed != call->getAttributes()) {
          call->setAttributes(fixed);
        }
      }
    }
  }
  for (llvm::GlobalValue& gv : module.global_values()) gv.removeDeadConstantUsers();
}

namespace {

// The members of LLVM 19's ValueSymbolTable, in order (llvm/IR/ValueSymbolTable.h).
struct SymbolTableLayout {
  llvm::StringMap<llvm::Value*> vmap;
  int max_name_size;
  uint32_t last_unique;
};
static_assert(sizeof(SymbolTableLayout) == sizeof(llvm::ValueSymbolTable));

uint32_t& LastUnique(const llvm::ValueSymbolTable& table) {
  return reinterpret_cast<SymbolTableLayout&>(const_cast<llvm::ValueSymbolTable&>(table))
      .last_unique;
}

// Whether the counter is where the layout says: two clashes count 2, and a count of 7 makes
// the next clash's suffix 8.
bool LayoutHolds() {
  llvm::LLVMContext context;
  llvm::Module module("probe", context);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), false);
  for (int i = 0; i < 3; ++i) {
    llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, "f", module);
  }
  uint32_t& counter = LastUnique(module.getValueSymbolTable());
  if (counter != 2 || module.getFunction("f.2") == nullptr) return false;
  counter = 7;
  llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, "f", module);
  return module.getFunction("f.8") != nullptr;
}

}  // namespace

std::vector<uint32_t> NameCounters(const llvm::Module& module) {
  static const bool layout_holds = LayoutHolds();
  std::vector<uint32_t> counters;
  if (!layout_holds) return counters;
  counters.push_back(LastUnique(module.getValueSymbolTable()));
  for (const llvm::Function& function : module) {
    const llvm::ValueSymbolTable* table = function.getValueSymbolTable();
    counters.push_back(table != nullptr ? LastUnique(*table) : 0);
  }
  return counters;
}

void SetNameCounters(const std::vector<uint32_t>& counters, llvm::Module& module) {
  if (counters.empty()) return;
  LastUnique(module.getValueSymbolTable()) = counters[0];
  size_t i = 1;
  for (llvm::Function& function : module) {
    if (i == counters.size()) break;
    if (llvm::ValueSymbolTable* table = function.getValueSymbolTable()) {
      LastUnique(*table) = counters[i];
    }
    ++i;
  }
}

bool CopyNameCounters(const llvm::Module& from, llvm::Module& to) {
  std::vector<uint32_t> counters = NameCounters(from);
  SetNameCounters(counters, to);
  return !counters.empty();
}

}  // namespace compiler_gym::llvm_env
