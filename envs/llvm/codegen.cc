// Target machines and object emission through LLVM's legacy codegen pipeline, on a copy of the
// module (codegen changes what it compiles), and the .text size of an object file.
#include "envs/llvm/codegen.h"

#include <mutex>

#include "envs/llvm/module_util.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

namespace compiler_gym::llvm_env {

namespace {
void InitializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}
}  // namespace

StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(const llvm::Module& module) {
  InitializeTargets();
  std::string triple = module.getTargetTriple();
  if (triple.empty()) triple = llvm::sys::getDefaultTargetTriple();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (target == nullptr) return Unimplemented("no code generator for " + triple + ": " + error);
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(
      target->createTargetMachine(triple, /*CPU=*/"", /*Features=*/"", options, llvm::Reloc::PIC_,
                                  std::nullopt, llvm::CodeGenOptLevel::Default));
  if (!tm) return Unimplemented("cannot create a target machine for " + triple);
  return tm;
}

StatusOr<std::string> EmitObject(const llvm::Module& module) {
  // Code generation changes the module it runs on, so it runs on a copy, made through bitcode
  // in a context of its own. llvm::CloneModule is not used: it maps a blockaddress in a global
  // initializer (a static table of label addresses) to the original function's block, and the
  // object then refers to a label that is never defined ("Undefined temporary symbol").
  auto context = NewContext();
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> copy,
                   ParseModule(ModuleToBitcode(module), "codegen", *context));
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm, CreateTargetMachine(*copy));
  if (copy->getDataLayout().isDefault()) copy->setDataLayout(tm->createDataLayout());
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  auto pm = std::make_unique<llvm::legacy::PassManager>();
  if (tm->addPassesToEmitFile(*pm, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    return Unimplemented("the target cannot emit object files");
  }
  // The backend reports some input it cannot handle (e.g. inline asm naming undefined
  // labels) as fatal errors: contained, they fail this call.
  if (!RunCrashContained([&] { pm->run(*copy); })) {
    FreeAfterCrash(pm, copy, tm, context);
    return Aborted("code generation failed (LLVM reported a fatal error)");
  }
  if (std::string error = TakeDiagnosedError(copy->getContext()); !error.empty()) {
    return Aborted("code generation failed: " + error);
  }
  return std::string(buffer.begin(), buffer.end());
}

StatusOr<int64_t> TextSectionSize(llvm::StringRef binary) {
  auto buffer = llvm::MemoryBuffer::getMemBuffer(binary, "object", false);
  auto object = llvm::object::ObjectFile::createObjectFile(buffer->getMemBufferRef());
  if (!object) return Internal("cannot read object file: " + llvm::toString(object.takeError()));
  int64_t size = 0;
  for (const llvm::object::SectionRef& section : (*object)->sections()) {
    auto name = section.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    if (*name == ".text" || name->starts_with(".text.")) size += section.getSize();
  }
  return size;
}

}  // namespace compiler_gym::llvm_env
