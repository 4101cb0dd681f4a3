// What the LLVM environment treats as a module's state, independent of what passes claim:
//
//   ModuleFingerprint before = Fingerprint(module);
//   RETURN_IF_ERROR(RunPipeline(module, /*tm=*/nullptr, "instcombine"));  // passes.h
//   Canonicalize(module);
//   ModuleFingerprint after = Fingerprint(module);
//   if (after.module != before.module) { /* globals or the function list changed */ }
//   for (size_t f : ChangedFunctions(before, after)) { /* that body changed */ }
//
// A fingerprint is not a hash to compare across modules or processes (IrSha1 is): it identifies
// types, attribute lists and metadata by address, which is sound only within one context, and
// is only ever compared with an earlier fingerprint of the same module.
#pragma once

#include <cstdint>
#include <vector>

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Module.h"

namespace compiler_gym::llvm_env {

struct ModuleFingerprint {
  // Everything outside function bodies: the module's properties and every global value's
  // header (name, linkage, attributes, type, initializer, ...), in module order.
  uint64_t module = 0;
  // One per function in module order (declarations included, 0 for them): its body.
  std::vector<uint64_t> bodies;
  bool operator==(const ModuleFingerprint&) const = default;
};

// What a fingerprint can reuse from the previous one of the same module: each function body's
// hash, keyed by a quicker hash of the body that names values by address. Equal quick hashes
// mean an unchanged body (an address can be reused only by a value that is hashed too), so on
// the common step that changes little, only changed bodies are numbered and hashed again.
// Clear it whenever the module is replaced.
struct FingerprintCache {
  struct Entry {
    uint64_t by_address = 0;
    uint64_t body = 0;
  };
  llvm::DenseMap<const llvm::Function*, Entry> bodies;
};

// One walk over the module. Local values (arguments, blocks, instructions) are identified by
// their position and constants by their content, so deleting an instruction and creating an
// identical one in its place is no change, while any change that reaches the bitcode (an
// operand, a flag, an alignment, a name, an attribute, a metadata attachment, a global's
// initializer, the order of anything) changes the fingerprint.
ModuleFingerprint Fingerprint(const llvm::Module& module, FingerprintCache* cache = nullptr);

// ModuleFingerprint::module alone: what lies outside function bodies.
uint64_t ModuleHeaderHash(const llvm::Module& module);

// Records in `cache` that `function`, as it is now, has the body hash `body` (known otherwise:
// a body put back from a snapshot), so that the next Fingerprint does not hash it again.
// Returns the body's address hash (FingerprintCache::Entry::by_address).
uint64_t RecordBody(const llvm::Function& function, uint64_t body, FingerprintCache& cache);

// Indices of the function bodies that differ; only meaningful when `before.module ==
// after.module` (the same function list).
std::vector<size_t> ChangedFunctions(const ModuleFingerprint& before,
                                     const ModuleFingerprint& after);

// Brings the in-memory module to the form it has after a bitcode round trip, which is the form
// every fork and every new episode starts from:
// - intrinsic declarations carry exactly their intrinsic's attributes (passes that infer
//   attributes add some, and the bitcode reader resets them);
// - no parameter, return or call-site alignment of 2^32 (the reader keeps 32 bits of it);
// - no dead constants hang off global values (bitcode cannot hold them, and passes that walk a
//   global's users would see them in the original but not in a copy).
void Canonicalize(llvm::Module& module);

// State of a module that its bitcode does not hold: how many names each symbol table (the
// module's, each function's) has made unique. A pass that names something already named
// (-partial-inliner's "f.1.extracted") takes the next count, so a copy made through bitcode,
// whose counts restart at 0, would name it differently from the original. Copies the counts
// from `from` to `to`, which has the same functions in the same order. LLVM keeps the counter
// private: it is reached through the layout of LLVM 19's ValueSymbolTable, which a probe
// checks once; returns false (and copies nothing) where the probe fails.
bool CopyNameCounters(const llvm::Module& from, llvm::Module& to);
// The same counts saved (module's, then each function's in order; empty where the probe
// fails) and set again on the same module or a copy of it.
std::vector<uint32_t> NameCounters(const llvm::Module& module);
void SetNameCounters(const std::vector<uint32_t>& counters, llvm::Module& module);

}  // namespace compiler_gym::llvm_env
