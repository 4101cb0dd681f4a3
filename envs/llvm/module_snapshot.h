// A module's saved state that the module is put back to at the cost of what changed since,
// for TryActions, which returns a scratch env to one state between candidates:
//
//   auto snapshot = ModuleSnapshot::Take(module, fingerprint, cache);
//   ... run a candidate: a pass, Canonicalize, Fingerprint(module, &cache) ...
//   ModuleSnapshot::Restored how = snapshot->Restore(module, after, cache);
//
// The copy lives in the module's own context, so a body is put back by cloning it within the
// context: no bitcode is written or read. Only the functions the candidate changed (by their
// fingerprint, or by the addresses of their instructions) are put back, and the use lists that
// the candidate reordered are sorted back to the saved order, which passes read and which a
// fork through bitcode (preserve_use_list_order) reproduces. A candidate that changed
// anything outside function bodies gets the whole module cloned back; one that changed the
// context itself (a struct type renamed or added, a metadata kind or sync scope registered),
// which no copy in the same context can undo, is left to the caller (kContext).
//
// What a copy in the same context cannot hide: the use lists of context-wide constants (i32 0,
// null, undef; LLVM 20 removed them, since no pass may depend on them) hold the copy's uses too.
#pragma once

#include <memory>

#include "envs/llvm/module_state.h"
#include "llvm/IR/Module.h"

namespace compiler_gym::llvm_env {

class ModuleSnapshot {
 public:
  // `fingerprint` is Fingerprint(module, &cache), taken just now. Returns nullptr for a module
  // that a same-context copy does not cover (one with debug information).
  static std::unique_ptr<ModuleSnapshot> Take(const llvm::Module& module,
                                              const ModuleFingerprint& fingerprint,
                                              const FingerprintCache& cache);
  ~ModuleSnapshot();

  enum class Restored {
    kFunctions,  // the changed function bodies were put back in place
    kModule,     // `module` was replaced by a new clone of the snapshot
    // The context changed (or the module no longer corresponds to the copy): the caller
    // restores another way and drops this snapshot, which may have replaced `module`.
    kContext,
  };
  // Puts `module` (the snapshot's module, or the clone a kModule restore made) back to the
  // snapshot's state after a candidate: `after` is its fingerprint now, computed with `cache`,
  // which is updated (entries of replaced functions dropped, all of them on kModule). After
  // kFunctions and kModule, the module's fingerprint is `fingerprint()` again.
  Restored Restore(std::unique_ptr<llvm::Module>& module, const ModuleFingerprint& after,
                   FingerprintCache& cache);

  const ModuleFingerprint& fingerprint() const;

 private:
  struct Data;
  explicit ModuleSnapshot(std::unique_ptr<Data> data);
  std::unique_ptr<Data> d_;
};

// Whether two modules of the same form (one a copy of the other) order the use lists of their
// own values alike (context-wide constants aside): what tests check of a restore.
bool SameUseLists(const llvm::Module& a, const llvm::Module& b);

}  // namespace compiler_gym::llvm_env
