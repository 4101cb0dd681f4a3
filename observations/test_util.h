// Test helpers: fixtures from tests/data, and inst2vec statements through LLVM's own printer.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "observations/inst2vec.h"
#include "observations/module_text.h"

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

// inst2vec statements the obvious way: LLVM's printer writes the whole module, and each
// statement's text is cut out and normalized. The reference for the direct writer of
// observations/statement_text.cc, which Inst2vecPreprocess uses.
inline std::vector<std::string> PrintedInst2vecStatements(const llvm::Module& module) {
  const auto bodies = observations::Inst2vecStructBodies(module);
  const observations::PrintedModule printed = observations::PrintModule(module);
  std::set<const llvm::Value*> is_statement;
  observations::ForEachInst2vecStatement(
      module, [&](const llvm::Value& value) { is_statement.insert(&value); });
  std::vector<std::string> statements;
  for (const observations::PrintedModule::Span& span : printed.spans) {
    if (!is_statement.contains(span.value)) continue;
    statements.push_back(observations::Inst2vecNormalize(printed.TextOf(span), bodies));
  }
  return statements;
}

// Compares two statement lists entry by entry, so a failure names the first statements that
// differ rather than dumping both lists.
inline void ExpectSameStatements(const std::vector<std::string>& actual,
                                 const std::vector<std::string>& expected,
                                 const std::string& where) {
  EXPECT_EQ(actual.size(), expected.size()) << where;
  int reported = 0;
  for (size_t i = 0; i < std::min(actual.size(), expected.size()) && reported < 5; ++i) {
    if (actual[i] == expected[i]) continue;
    ADD_FAILURE() << where << ", statement " << i << ":\n  written: " << actual[i]
                  << "\n  printed: " << expected[i];
    ++reported;
  }
}

}  // namespace compiler_gym::testing
