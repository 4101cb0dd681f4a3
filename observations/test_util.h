// Test helper: parse a fixture from tests/data into a module.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"

namespace compiler_gym::testing {

inline std::string FixturePath(const std::string& name) {
  return std::string(CG_SOURCE_DIR) + "/tests/data/" + name;
}

inline std::unique_ptr<llvm::Module> ParseFixture(const std::string& name,
                                                  llvm::LLVMContext& context) {
  llvm::SMDiagnostic error;
  auto module = llvm::parseAssemblyFile(FixturePath(name), error, context);
  EXPECT_TRUE(module) << error.getMessage().str();
  return module;
}

}  // namespace compiler_gym::testing
