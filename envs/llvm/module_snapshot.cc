// ModuleSnapshot: a same-context copy of a module, and putting the module back to it function
// by function, use lists included.
#include "envs/llvm/module_snapshot.h"

#include <string>
#include <utility>
#include <vector>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalIFunc.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

namespace compiler_gym::llvm_env {
namespace {

// Values shared by every module of a context (i32 0, inline asm, metadata wrappers): the copy's
// uses are on their lists too, so their order is not the module's to keep.
bool ContextWide(const llvm::Value* value) {
  return llvm::isa<llvm::ConstantData>(value) || llvm::isa<llvm::InlineAsm>(value) ||
         llvm::isa<llvm::MetadataAsValue>(value);
}

// Calls visit(v) once for every value of `function` and every constant its instructions reach
// (through constant operands), globals included.
template <typename Visit>
void ForEachValueOf(const llvm::Function& function, llvm::DenseSet<const llvm::Value*>& seen,
                    Visit&& visit) {
  llvm::SmallVector<const llvm::Value*, 16> stack;
  auto push = [&](const llvm::Value* v) {
    if (seen.insert(v).second) stack.push_back(v);
  };
  for (const llvm::Argument& arg : function.args()) push(&arg);
  for (const llvm::BasicBlock& block : function) {
    push(&block);
    for (const llvm::Instruction& inst : block) {
      push(&inst);
      for (const llvm::Value* operand : inst.operands()) {
        if (llvm::isa<llvm::Constant>(operand)) push(operand);
      }
    }
  }
  while (!stack.empty()) {
    const llvm::Value* v = stack.pop_back_val();
    visit(v);
    if (const auto* constant = llvm::dyn_cast<llvm::Constant>(v);
        constant != nullptr && !llvm::isa<llvm::GlobalValue>(constant)) {
      for (const llvm::Value* operand : constant->operands()) push(operand);
    }
  }
}

// Every value of the module with a use list of its own: global values, what their initializers
// and other operands reach, and every function's values.
template <typename Visit>
void ForEachValue(const llvm::Module& module, Visit&& visit) {
  llvm::DenseSet<const llvm::Value*> seen;
  llvm::SmallVector<const llvm::Value*, 16> stack;
  for (const llvm::GlobalValue& global : module.global_values()) {
    if (seen.insert(&global).second) stack.push_back(&global);
  }
  while (!stack.empty()) {
    const llvm::Value* v = stack.pop_back_val();
    visit(v);
    if (const auto* user = llvm::dyn_cast<llvm::User>(v)) {
      for (const llvm::Value* operand : user->operands()) {
        if (llvm::isa<llvm::Constant>(operand) && seen.insert(operand).second) {
          stack.push_back(operand);
        }
      }
    }
  }
  for (const llvm::Function& function : module) ForEachValueOf(function, seen, visit);
}

// Sorts `to`'s use list into the order of `from`'s, whose users map to `to`'s through
// `map_user`. False when the two lists do not correspond use for use.
template <typename MapUser>
bool MatchUseList(const llvm::Value& from, llvm::Value& to, MapUser&& map_user,
                  llvm::DenseMap<const llvm::Use*, unsigned>& rank) {
  rank.clear();
  unsigned n = 0;
  for (const llvm::Use& use : from.uses()) {
    llvm::User* user = map_user(use.getUser());
    if (user == nullptr || use.getOperandNo() >= user->getNumOperands()) return false;
    rank[&user->getOperandUse(use.getOperandNo())] = n++;
  }
  unsigned m = 0;
  for (const llvm::Use& use : to.uses()) {
    if (!rank.contains(&use)) return false;
    ++m;
  }
  if (m != n) return false;
  if (n > 1) {
    to.sortUseList(
        [&](const llvm::Use& a, const llvm::Use& b) { return rank.lookup(&a) < rank.lookup(&b); });
  }
  return true;
}

llvm::Value* Lookup(llvm::ValueToValueMapTy& map, const llvm::Value* v) {
  auto it = map.find(v);
  return it == map.end() ? nullptr : static_cast<llvm::Value*>(it->second);
}

// The order of a global value's use list, and of those of the constant expressions that use
// it, by the users' addresses: a pass can reorder them without changing any body (a use set
// to what it was moves to the front), which a fingerprint does not see.
uint64_t UseOrder(const llvm::GlobalValue& global) {
  uint64_t h = 0;
  auto mix = [&h](const llvm::Use& use) {
    h = llvm::hash_combine(h, use.getUser(), use.getOperandNo());
  };
  for (const llvm::Use& use : global.uses()) {
    mix(use);
    if (const auto* expression = llvm::dyn_cast<llvm::ConstantExpr>(use.getUser())) {
      for (const llvm::Use& inner : expression->uses()) mix(inner);
    }
  }
  return h;
}

// A clone of `from` in its context (through `clone_map`, which may hold metadata to reuse),
// whose use lists are in `from`'s order, as a fork through bitcode keeps them; nullptr when
// the lists do not correspond.
std::unique_ptr<llvm::Module> CloneInOrder(const llvm::Module& from,
                                           llvm::ValueToValueMapTy& clone_map) {
  std::unique_ptr<llvm::Module> clone = llvm::CloneModule(from, clone_map);
  llvm::DenseMap<const llvm::Use*, unsigned> rank;
  bool matched = true;
  ForEachValue(from, [&](const llvm::Value* v) {
    llvm::Value* mine = Lookup(clone_map, v);
    if (!matched || ContextWide(v) || mine == nullptr || mine == v) return;
    matched = MatchUseList(
        *v, *mine,
        [&](const llvm::User* user) {
          return llvm::dyn_cast_or_null<llvm::User>(Lookup(clone_map, user));
        },
        rank);
  });
  return matched ? std::move(clone) : nullptr;
}

size_t MetadataKindCount(const llvm::LLVMContext& context) {
  llvm::SmallVector<llvm::StringRef, 64> names;
  context.getMDKindNames(names);
  return names.size();
}

size_t SyncScopeCount(const llvm::LLVMContext& context) {
  llvm::SmallVector<llvm::StringRef, 8> names;
  context.getSyncScopeNames(names);
  return names.size();
}

}  // namespace

struct ModuleSnapshot::Data {
  std::unique_ptr<llvm::Module> copy;  // in the module's context
  ModuleFingerprint fingerprint;
  // The module's functions and global values (in module order), and the copy's.
  std::vector<llvm::Function*> functions, copy_functions;
  std::vector<llvm::GlobalValue*> globals;
  std::vector<const llvm::GlobalValue*> copy_globals;  // the copy's, in the same order
  std::vector<uint64_t> use_orders;                    // UseOrder of each of `globals`
  std::vector<uint64_t> by_address;                    // FingerprintCache's, per function
  std::vector<bool> copy_address_taken;  // a block of the copy's function i has its address taken
  // The copy's values to the module's: global values, arguments, blocks and instructions.
  llvm::DenseMap<const llvm::Value*, llvm::Value*> to_module;
  // Copy to module, for the value mapper (constants naming global values, metadata): global
  // values, arguments and metadata are seeded; mapped constants accumulate (weakly held).
  std::unique_ptr<llvm::ValueToValueMapTy> map_;
  // The context's state that a copy cannot restore.
  struct NamedStruct {
    llvm::StructType* type;
    std::string name;
    bool opaque;
  };
  std::vector<NamedStruct> structs;
  llvm::DenseSet<llvm::Type*> struct_set;
  size_t metadata_kinds = 0, sync_scopes = 0;

  // Records the module's side after `module` became (or was cloned from) the copy through
  // `clone_map` (copy -> module when `copy_to_module`, else module -> copy).
  void Index(llvm::Module& module, llvm::ValueToValueMapTy& clone_map, bool copy_to_module);
  bool ContextChanged(const llvm::Module& module) const;
  bool NewStructsIn(const llvm::Function& function) const;
  bool RestoreFunctions(llvm::Module& module, const std::vector<size_t>& changed);
  void RestoreHeaders(llvm::Module& module);
  // The copy's constants that RestoreHeaders set as operands of global values, whose use
  // lists RestoreFunctions then sorts.
  std::vector<const llvm::Constant*> header_constants;
};

// Puts back every global value's header (what lies outside bodies: names, linkage, attributes,
// initializers, comdats, metadata) from the copy, after a candidate that changed headers but
// kept the same global values. Operands are set only where they differ (setting one moves it
// in its value's use list); use lists are left to RestoreFunctions.
void ModuleSnapshot::Data::RestoreHeaders(llvm::Module& module) {
  llvm::ValueToValueMapTy& map = *map_;
  auto mapped = [&](const llvm::Constant* c) {
    return llvm::cast_or_null<llvm::Constant>(llvm::MapValue(c, map));
  };
  for (size_t i = 0; i < globals.size(); ++i) {
    llvm::GlobalValue& g = *globals[i];
    const llvm::GlobalValue& source = *copy_globals[i];
    if (g.getName() != source.getName()) g.setName(source.getName());
    g.setLinkage(source.getLinkage());
    if (auto* f = llvm::dyn_cast<llvm::Function>(&g)) {
      const auto& from = llvm::cast<llvm::Function>(source);
      f->copyAttributesFrom(&from);  // sets the copy's own personality: put right below
      const llvm::Constant* operands[] = {
          from.hasPersonalityFn() ? from.getPersonalityFn() : nullptr,
          from.hasPrefixData() ? from.getPrefixData() : nullptr,
          from.hasPrologueData() ? from.getPrologueData() : nullptr};
      f->setPersonalityFn(operands[0] != nullptr ? mapped(operands[0]) : nullptr);
      f->setPrefixData(operands[1] != nullptr ? mapped(operands[1]) : nullptr);
      f->setPrologueData(operands[2] != nullptr ? mapped(operands[2]) : nullptr);
      for (const llvm::Constant* c : operands) {
        if (c != nullptr) header_constants.push_back(c);
      }
    } else if (auto* v = llvm::dyn_cast<llvm::GlobalVariable>(&g)) {
      const auto& from = llvm::cast<llvm::GlobalVariable>(source);
      v->copyAttributesFrom(&from);
      v->setConstant(from.isConstant());
      llvm::Constant* init = from.hasInitializer() ? mapped(from.getInitializer()) : nullptr;
      if ((v->hasInitializer() ? v->getInitializer() : nullptr) != init) {
        v->setInitializer(init);
        if (init != nullptr) header_constants.push_back(from.getInitializer());
      }
    } else if (auto* alias = llvm::dyn_cast<llvm::GlobalAlias>(&g)) {
      const llvm::Constant* aliasee = llvm::cast<llvm::GlobalAlias>(source).getAliasee();
      if (alias->getAliasee() != mapped(aliasee)) {
        alias->setAliasee(mapped(aliasee));
        header_constants.push_back(aliasee);
      }
    } else if (auto* ifunc = llvm::dyn_cast<llvm::GlobalIFunc>(&g)) {
      const llvm::Constant* resolver = llvm::cast<llvm::GlobalIFunc>(source).getResolver();
      if (ifunc->getResolver() != mapped(resolver)) {
        ifunc->setResolver(mapped(resolver));
        header_constants.push_back(resolver);
      }
    }
    if (auto* object = llvm::dyn_cast<llvm::GlobalObject>(&g)) {
      const auto& from = llvm::cast<llvm::GlobalObject>(source);
      llvm::Comdat* comdat = nullptr;
      if (const llvm::Comdat* c = from.getComdat()) {
        comdat = module.getOrInsertComdat(c->getName());
        comdat->setSelectionKind(c->getSelectionKind());
      }
      object->setComdat(comdat);
      object->clearMetadata();
      llvm::SmallVector<std::pair<unsigned, llvm::MDNode*>, 4> attachments;
      from.getAllMetadata(attachments);
      for (auto& [kind, node] : attachments) {
        object->addMetadata(kind, *llvm::MapMetadata(node, map));
      }
    }
  }
  for (llvm::GlobalValue& g : module.global_values()) g.removeDeadConstantUsers();
}

void ModuleSnapshot::Data::Index(llvm::Module& module, llvm::ValueToValueMapTy& clone_map,
                                 bool copy_to_module) {
  to_module.clear();
  for (auto it = clone_map.begin(); it != clone_map.end(); ++it) {
    const llvm::Value* key = it->first;
    llvm::Value* mapped = it->second;
    if (mapped == nullptr) continue;
    llvm::Value* in_module = copy_to_module ? mapped : const_cast<llvm::Value*>(key);
    const llvm::Value* in_copy = copy_to_module ? key : mapped;
    if (llvm::isa<llvm::GlobalValue, llvm::Argument, llvm::BasicBlock, llvm::Instruction>(
            in_module)) {
      to_module[in_copy] = in_module;
    }
  }
  map_ = std::make_unique<llvm::ValueToValueMapTy>();
  llvm::ValueToValueMapTy& map = *map_;
  if (auto& metadata = clone_map.getMDMap()) {
    for (auto& [key, value] : *metadata) {
      llvm::Metadata* mapped = value.get();
      if (mapped == nullptr) continue;
      if (copy_to_module) {
        map.MD()[key].reset(mapped);
      } else {
        map.MD()[mapped].reset(const_cast<llvm::Metadata*>(key));
      }
    }
  }
  functions.clear();
  globals.clear();
  for (llvm::Function& f : module) functions.push_back(&f);
  for (llvm::GlobalValue& g : module.global_values()) globals.push_back(&g);
  use_orders.clear();
  for (const llvm::GlobalValue* g : globals) use_orders.push_back(UseOrder(*g));
  copy_globals.clear();
  for (llvm::GlobalValue& g : copy->global_values()) {
    map[&g] = to_module.lookup(&g);
    copy_globals.push_back(&g);
  }
  for (size_t i = 0; i < functions.size(); ++i) {
    auto arg = functions[i]->arg_begin();
    for (llvm::Argument& copy_arg : copy_functions[i]->args()) map[&copy_arg] = &*arg++;
  }
}

bool ModuleSnapshot::Data::ContextChanged(const llvm::Module& module) const {
  const llvm::LLVMContext& context = module.getContext();
  if (MetadataKindCount(context) != metadata_kinds || SyncScopeCount(context) != sync_scopes) {
    return true;
  }
  for (const NamedStruct& s : structs) {
    if (s.type->getName() != s.name || s.type->isOpaque() != s.opaque) return true;
  }
  return false;
}

// Whether the function's instructions use a named struct type the snapshot did not know: one
// that a pass created in the context, which a fork made afterwards would not have.
bool ModuleSnapshot::Data::NewStructsIn(const llvm::Function& function) const {
  llvm::DenseSet<llvm::Type*> seen;
  llvm::SmallVector<llvm::Type*, 16> stack;
  auto push = [&](llvm::Type* type) {
    if (type != nullptr && seen.insert(type).second) stack.push_back(type);
  };
  for (const llvm::Instruction& inst : llvm::instructions(function)) {
    push(inst.getType());
    for (const llvm::Value* operand : inst.operands()) push(operand->getType());
    if (const auto* alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst)) {
      push(alloca->getAllocatedType());
    } else if (const auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(&inst)) {
      push(gep->getSourceElementType());
    } else if (const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
      push(call->getFunctionType());
    }
  }
  while (!stack.empty()) {
    llvm::Type* type = stack.pop_back_val();
    if (auto* s = llvm::dyn_cast<llvm::StructType>(type);
        s != nullptr && !s->isLiteral() && !struct_set.contains(s)) {
      return true;
    }
    for (llvm::Type* sub : type->subtypes()) push(sub);
  }
  return false;
}

std::unique_ptr<ModuleSnapshot> ModuleSnapshot::Take(const llvm::Module& module,
                                                     const ModuleFingerprint& fingerprint,
                                                     const FingerprintCache& cache) {
  // Cloning a body back would duplicate its subprogram's distinct debug metadata.
  if (module.getNamedMetadata("llvm.dbg.cu") != nullptr) return nullptr;
  auto d = std::make_unique<Data>();
  llvm::ValueToValueMapTy clone_map;
  d->copy = CloneInOrder(module, clone_map);
  if (d->copy == nullptr) return nullptr;
  for (llvm::Function& f : *d->copy) {
    d->copy_functions.push_back(&f);
    bool taken = false;
    for (const llvm::BasicBlock& block : f) taken |= block.hasAddressTaken();
    d->copy_address_taken.push_back(taken);
  }
  (void)CopyNameCounters(module, *d->copy);
  d->Index(const_cast<llvm::Module&>(module), clone_map, /*copy_to_module=*/false);
  d->fingerprint = fingerprint;
  for (const llvm::Function* f : d->functions)
    d->by_address.push_back(cache.bodies.lookup(f).by_address);
  for (llvm::StructType* s : module.getIdentifiedStructTypes()) {
    d->structs.push_back({s, s->getName().str(), s->isOpaque()});
    d->struct_set.insert(s);
  }
  d->metadata_kinds = MetadataKindCount(module.getContext());
  d->sync_scopes = SyncScopeCount(module.getContext());
  return std::unique_ptr<ModuleSnapshot>(new ModuleSnapshot(std::move(d)));
}

ModuleSnapshot::ModuleSnapshot(std::unique_ptr<Data> data) : d_(std::move(data)) {}
ModuleSnapshot::~ModuleSnapshot() = default;

const ModuleFingerprint& ModuleSnapshot::fingerprint() const { return d_->fingerprint; }

// Puts the bodies of the functions `changed` back from the copy, and sorts every use list the
// candidate could have reordered back to the copy's order. False when the use lists do not
// correspond (the module is then inconsistent with the snapshot; the caller clones it anew).
bool ModuleSnapshot::Data::RestoreFunctions(llvm::Module& module,
                                            const std::vector<size_t>& changed) {
  llvm::ValueToValueMapTy& map = *map_;
  auto map_operand = [&](llvm::Value* v) -> llvm::Value* {
    if (llvm::isa<llvm::ConstantData>(v)) return v;
    if (const auto* wrapped = llvm::dyn_cast<llvm::MetadataAsValue>(v);
        wrapped != nullptr && !llvm::isa<llvm::MDNode, llvm::MDString>(wrapped->getMetadata())) {
      return nullptr;  // metadata naming a local value: left to the whole-module clone
    }
    if (llvm::isa<llvm::Instruction, llvm::Argument, llvm::BasicBlock, llvm::GlobalValue>(v)) {
      return to_module.lookup(v);
    }
    return llvm::MapValue(v, map);  // constant expressions, metadata as values, inline asm
  };

  // Global values the candidate's bodies reached through constants: constants that only those
  // bodies used are dead once the bodies go, and a fork would not have them.
  llvm::DenseSet<const llvm::Value*> seen;
  llvm::SmallVector<const llvm::Value*, 16> stack;
  llvm::SmallVector<llvm::GlobalValue*, 16> reached;
  for (size_t i : changed) {
    llvm::Function& f = *functions[i];
    for (const llvm::Instruction& inst : llvm::instructions(f)) {
      for (const llvm::Value* operand : inst.operands()) {
        if (llvm::isa<llvm::Constant>(operand) && !llvm::isa<llvm::ConstantData>(operand) &&
            seen.insert(operand).second) {
          stack.push_back(operand);
        }
      }
    }
    for (llvm::BasicBlock& block : f) block.dropAllReferences();
    while (!f.empty()) f.begin()->eraseFromParent();
    f.clearMetadata();
  }
  while (!stack.empty()) {
    const auto* c = llvm::cast<llvm::Constant>(stack.pop_back_val());
    if (const auto* g = llvm::dyn_cast<llvm::GlobalValue>(c)) {
      reached.push_back(const_cast<llvm::GlobalValue*>(g));
      continue;
    }
    for (const llvm::Value* operand : c->operands()) {
      if (!llvm::isa<llvm::ConstantData>(operand) && seen.insert(operand).second) {
        stack.push_back(operand);
      }
    }
  }
  for (llvm::GlobalValue* g : reached) g->removeDeadConstantUsers();
  // Only constants that name global values go through the value mapper (and its map, which
  // holds them weakly); mappings to constants deleted since (by a candidate's step, or just
  // now) read as null, which the mapper would take for a mapping.
  llvm::SmallVector<const llvm::Value*, 16> stale;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->second == nullptr) stale.push_back(it->first);
  }
  for (const llvm::Value* v : stale) map.erase(v);

  // The copy's bodies, cloned: blocks and instructions first (recorded in `to_module`), then
  // their operands and metadata mapped, as CloneFunctionInto would but without a value handle
  // per value.
  for (size_t i : changed) {
    llvm::Function& f = *functions[i];
    const llvm::Function& source = *copy_functions[i];
    llvm::SmallVector<std::pair<unsigned, llvm::MDNode*>, 4> attachments;
    source.getAllMetadata(attachments);
    for (auto& [kind, node] : attachments) f.addMetadata(kind, *llvm::MapMetadata(node, map));
    auto arg = f.arg_begin();
    for (const llvm::Argument& source_arg : source.args()) {
      if (arg->getName() != source_arg.getName()) arg->setName(source_arg.getName());
      ++arg;
    }
    for (const llvm::BasicBlock& block : source) {
      auto* copy = llvm::BasicBlock::Create(f.getContext(), block.getName(), &f);
      to_module[&block] = copy;
      for (const llvm::Instruction& inst : block) {
        llvm::Instruction* clone = inst.clone();
        clone->insertInto(copy, copy->end());
        if (inst.hasName()) clone->setName(inst.getName());
        to_module[&inst] = clone;
      }
    }
    for (const llvm::Instruction& inst : llvm::instructions(source)) {
      auto* clone = llvm::cast<llvm::Instruction>(to_module.lookup(&inst));
      for (unsigned op = 0; op < inst.getNumOperands(); ++op) {
        llvm::Value* mapped = map_operand(inst.getOperand(op));
        if (mapped == nullptr) {
          // Clones still use the copy's values: let go of them before anything is freed.
          for (size_t j : changed) {
            for (llvm::BasicBlock& block : *functions[j]) block.dropAllReferences();
          }
          return false;
        }
        clone->setOperand(op, mapped);
      }
      if (const auto* phi = llvm::dyn_cast<llvm::PHINode>(&inst)) {
        auto* clone_phi = llvm::cast<llvm::PHINode>(clone);
        for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k) {
          clone_phi->setIncomingBlock(
              k, llvm::cast<llvm::BasicBlock>(to_module.lookup(phi->getIncomingBlock(k))));
        }
      }
      if (!inst.hasMetadata()) continue;
      attachments.clear();
      inst.getAllMetadata(attachments);
      for (auto& [kind, node] : attachments) {
        // clone() copied them. Most map to themselves (uniqued, naming no global); distinct
        // ones (loop ids) map to the module's own.
        if (llvm::MDNode* mine = llvm::MapMetadata(node, map); mine != node) {
          clone->setMetadata(kind, mine);
        }
      }
    }
  }

  // The use lists, in the copy's order: those of the bodies' own values (one use needs no
  // sorting), then those of what the bodies use from outside (global values, constants).
  auto in_module = [&](const llvm::User* user) -> llvm::User* {
    if (llvm::isa<llvm::Instruction, llvm::GlobalValue>(user)) {
      return llvm::cast_or_null<llvm::User>(to_module.lookup(user));
    }
    if (const auto* constant = llvm::dyn_cast<llvm::Constant>(user)) {
      return llvm::dyn_cast_or_null<llvm::User>(
          llvm::MapValue(const_cast<llvm::Constant*>(constant), map));
    }
    return nullptr;
  };
  llvm::DenseMap<const llvm::Use*, unsigned> rank;
  auto match_local = [&](const llvm::Value& v) {
    llvm::Value* mine = to_module.lookup(&v);
    if (v.hasOneUse() && mine->hasOneUse()) return true;
    return v.getNumUses() == mine->getNumUses() && MatchUseList(v, *mine, in_module, rank);
  };
  seen.clear();
  for (size_t i : changed) {
    const llvm::Function& source = *copy_functions[i];
    for (const llvm::Argument& arg : source.args()) {
      if (!match_local(arg)) return false;
    }
    for (const llvm::BasicBlock& block : source) {
      if (!match_local(block)) return false;
      for (const llvm::Instruction& inst : block) {
        if (!match_local(inst)) return false;
        for (const llvm::Value* operand : inst.operands()) {
          if (llvm::isa<llvm::Constant>(operand) && !ContextWide(operand) &&
              seen.insert(operand).second) {
            stack.push_back(operand);
          }
        }
      }
    }
  }
  for (const llvm::Constant* c : header_constants) {
    if (!ContextWide(c) && seen.insert(c).second) stack.push_back(c);
  }
  header_constants.clear();
  while (!stack.empty()) {
    const llvm::Value* v = stack.pop_back_val();
    llvm::Value* mine = map_operand(const_cast<llvm::Value*>(v));
    if (mine == nullptr) return false;
    if (mine == v) continue;  // a constant of the context, shared with the copy
    if (!MatchUseList(*v, *mine, in_module, rank)) return false;
    if (llvm::isa<llvm::GlobalValue>(v)) continue;
    for (const llvm::Value* operand : llvm::cast<llvm::Constant>(v)->operands()) {
      if (!ContextWide(operand) && seen.insert(operand).second) stack.push_back(operand);
    }
  }
  // Global values whose use lists the candidate reordered without changing a body.
  for (size_t i = 0; i < globals.size(); ++i) {
    const uint64_t order = UseOrder(*globals[i]);
    if (order == use_orders[i]) continue;
    const llvm::GlobalValue& original = *llvm::cast<llvm::GlobalValue>(copy_globals[i]);
    if (!seen.contains(&original)) {
      if (!MatchUseList(original, *globals[i], in_module, rank)) return false;
      for (const llvm::User* user : original.users()) {
        if (const auto* expression = llvm::dyn_cast<llvm::ConstantExpr>(user)) {
          llvm::Value* mine = map_operand(const_cast<llvm::ConstantExpr*>(expression));
          if (mine == nullptr || !MatchUseList(*expression, *mine, in_module, rank)) return false;
        }
      }
    }
    use_orders[i] = UseOrder(*globals[i]);
  }
  return true;
}

ModuleSnapshot::Restored ModuleSnapshot::Restore(std::unique_ptr<llvm::Module>& module,
                                                 const ModuleFingerprint& after,
                                                 FingerprintCache& cache) {
  Data& d = *d_;
  if (d.ContextChanged(*module)) return Restored::kContext;
  // Function by function: the same global values (the same objects, in the same order, with
  // the same headers), and no block whose address is a constant.
  bool in_place =
      after.bodies.size() == d.fingerprint.bodies.size() &&
      module->global_size() + module->size() + module->alias_size() + module->ifunc_size() ==
          d.globals.size();
  if (in_place) {
    size_t i = 0;
    for (llvm::GlobalValue& g : module->global_values()) in_place &= &g == d.globals[i++];
  }
  if (in_place && after.module != d.fingerprint.module) {
    // Headers changed (attributes a pass inferred, an initializer): put back, and the module
    // is restored in place if nothing else outside bodies changed.
    d.RestoreHeaders(*module);
    in_place = ModuleHeaderHash(*module) == d.fingerprint.module;
  }
  std::vector<size_t> changed;
  for (size_t i = 0; in_place && i < d.functions.size(); ++i) {
    const llvm::Function& f = *d.functions[i];
    if (after.bodies[i] == d.fingerprint.bodies[i] &&
        cache.bodies.lookup(&f).by_address == d.by_address[i]) {
      continue;
    }
    bool taken = d.copy_address_taken[i];
    for (const llvm::BasicBlock& block : f) taken |= block.hasAddressTaken();
    if (taken) in_place = false;
    if (d.NewStructsIn(f)) return Restored::kContext;
    changed.push_back(i);
  }
  if (in_place && d.RestoreFunctions(*module, changed)) {
    for (size_t i : changed) {
      d.by_address[i] = RecordBody(*d.functions[i], d.fingerprint.bodies[i], cache);
    }
    (void)CopyNameCounters(*d.copy, *module);
    return Restored::kFunctions;
  }

  // Anything else: the whole module, cloned anew from the copy in the same context (unless the
  // candidate used a struct type it made, which stays in the context).
  for (llvm::StructType* s : module->getIdentifiedStructTypes()) {
    if (!d.struct_set.contains(s)) return Restored::kContext;
  }
  llvm::ValueToValueMapTy clone_map;
  if (auto& metadata = d.map_->getMDMap()) {
    // The module's own distinct nodes, not new ones: the fingerprint names them by address.
    for (auto& [key, value] : *metadata) clone_map.MD()[key].reset(value.get());
  }
  std::unique_ptr<llvm::Module> fresh = CloneInOrder(*d.copy, clone_map);
  if (fresh == nullptr) return Restored::kContext;
  (void)CopyNameCounters(*d.copy, *fresh);
  cache.bodies.clear();
  module = std::move(fresh);
  d.Index(*module, clone_map, /*copy_to_module=*/true);
  const ModuleFingerprint now = Fingerprint(*module, &cache);
  if (now != d.fingerprint) return Restored::kContext;
  for (size_t i = 0; i < d.functions.size(); ++i) {
    d.by_address[i] = cache.bodies.lookup(d.functions[i]).by_address;
  }
  return Restored::kModule;
}

namespace {

// Whether the value belongs to one module: not a constant the whole context shares (one that
// reaches no global value).
bool ModulesOwn(const llvm::Value* v, llvm::DenseMap<const llvm::Value*, bool>& memo) {
  if (ContextWide(v)) return false;
  const auto* constant = llvm::dyn_cast<llvm::Constant>(v);
  if (constant == nullptr || llvm::isa<llvm::GlobalValue>(constant)) return true;
  if (auto it = memo.find(v); it != memo.end()) return it->second;
  bool own = false;
  for (const llvm::Value* operand : constant->operands()) own = own || ModulesOwn(operand, memo);
  return memo[v] = own;
}

// The values of ForEachValue in its order, numbered, and each module-owned value's uses as
// (user's number, operand number) in use-list order.
std::vector<std::vector<std::pair<uint32_t, uint32_t>>> UseLists(const llvm::Module& module) {
  std::vector<const llvm::Value*> values;
  ForEachValue(module, [&](const llvm::Value* v) { values.push_back(v); });
  llvm::DenseMap<const llvm::Value*, uint32_t> number;
  for (const llvm::Value* v : values) number[v] = number.size();
  llvm::DenseMap<const llvm::Value*, bool> memo;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> lists;
  for (const llvm::Value* v : values) {
    auto& list = lists.emplace_back();
    if (!ModulesOwn(v, memo)) continue;
    for (const llvm::Use& use : v->uses()) {
      auto it = number.find(use.getUser());
      list.emplace_back(it == number.end() ? UINT32_MAX : it->second, use.getOperandNo());
    }
  }
  return lists;
}

}  // namespace

bool SameUseLists(const llvm::Module& a, const llvm::Module& b) {
  return UseLists(a) == UseLists(b);
}

}  // namespace compiler_gym::llvm_env
