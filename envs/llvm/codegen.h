// In-process code generation for the host target: object files and their .text size.
// Linking and running live in runtime.h.
#pragma once

#include <memory>
#include <string>

#include "engine/status.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace compiler_gym::llvm_env {

// A TargetMachine for the module's triple (the host's when it has none), generic CPU as
// `opt` uses, so that our pipelines see the same TargetTransformInfo as opt-19.
StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(const llvm::Module& module);

// Generates an object file for a copy of `module` (codegen mutates the IR it runs on).
StatusOr<std::string> EmitObject(const llvm::Module& module);

// Size in bytes of the sections named .text (and .text.*) of an object or executable.
StatusOr<int64_t> TextSectionSize(llvm::StringRef binary);

}  // namespace compiler_gym::llvm_env
