// inst2vec's direct statement writer (observations/statement_text.cc) against LLVM's printer on
// every built-in program, as loaded (O0) and after LLVM's O3 and Oz pipelines, which bring
// vectors, select, switch, phi, flags such as nsw, nuw, exact, disjoint and nneg, and intrinsics.
#include <gtest/gtest.h>

#include <filesystem>

#include "envs/llvm/module_util.h"
#include "envs/llvm/passes.h"
#include "observations/inst2vec.h"
#include "observations/statement_text.h"
#include "observations/test_util.h"

namespace compiler_gym {
namespace {

using llvm_env::LoadBenchmarkBitcode;
using llvm_env::NewContext;
using llvm_env::ParseModule;
using llvm_env::RunPipeline;

// Statements written by the writer itself and by LLVM's printer (the forms it hands over).
std::pair<size_t, size_t> Count(const llvm::Module& module) {
  observations::StatementText writer(module);
  size_t total = 0;
  std::string text;
  observations::ForEachInst2vecStatement(module, [&](const llvm::Value& value) {
    writer.Append(value, text);
    ++total;
  });
  return {total - writer.printed_by_llvm(), writer.printed_by_llvm()};
}

TEST(StatementTextCorpus, BuiltinProgramsAtO0O3AndOzNormalizeLikeLlvmsPrinter) {
  const std::string dir = std::string(CG_SOURCE_DIR) + "/python/compiler_gym/data/builtin-v0/src";
  size_t programs = 0, by_writer = 0, by_llvm = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".c") continue;
    const std::string name = entry.path().stem().string();
    auto bitcode = LoadBenchmarkBitcode(
        {.uri = "benchmark://builtin-v0/" + name, .files = {entry.path().string()}});
    ASSERT_TRUE(bitcode.ok()) << name << ": " << bitcode.status().message();
    for (const char* pipeline : {"", "default<O3>", "default<Oz>"}) {
      auto context = NewContext();
      auto module = ParseModule(*bitcode, name, *context);
      ASSERT_TRUE(module.ok()) << name;
      if (*pipeline != '\0') {
        ASSERT_TRUE(RunPipeline(**module, nullptr, pipeline).ok()) << name << " " << pipeline;
      }
      testing::ExpectSameStatements(
          observations::Inst2vecPreprocess(**module), testing::PrintedInst2vecStatements(**module),
          name + (*pipeline ? " after " : " at ") + (*pipeline ? pipeline : "O0"));
      const auto [writer, llvm] = Count(**module);
      by_writer += writer;
      by_llvm += llvm;
    }
    ++programs;
  }
  EXPECT_GE(programs, 26u);
  // LLVM's printer is the slow path: C programs should hardly need it.
  EXPECT_LT(by_llvm * 100, by_writer) << by_llvm << " of " << by_writer + by_llvm;
  std::printf("%zu statements written directly, %zu by LLVM's printer\n", by_writer, by_llvm);
}

}  // namespace
}  // namespace compiler_gym
