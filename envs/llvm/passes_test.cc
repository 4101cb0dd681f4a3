// Tests of the action tables: unique flags that match the action spaces, pipelines that LLVM
// parses, CompilerGym's flag names and order kept, and the pipeline actions refused.
#include "envs/llvm/passes.h"

#include <gtest/gtest.h>

#include <set>

#include "envs/llvm/llvm_env.h"
#include "llvm/Passes/PassBuilder.h"

namespace compiler_gym::llvm_env {
namespace {

TEST(PassTable, FlagsAreUniqueAndMatchTheActionSpace) {
  const auto& table = PassTable();
  ASSERT_GE(table.size(), 100u);
  std::set<std::string> flags;
  for (const PassRow& row : table) {
    EXPECT_TRUE(flags.insert(row.flag).second) << row.flag;
    EXPECT_EQ(row.flag.rfind("-", 0), 0u) << row.flag;
  }
  const auto& names = LlvmEnvSpec().action_spaces.at(0).action_names;
  ASSERT_EQ(names.size(), table.size());
  for (size_t i = 0; i < table.size(); ++i) EXPECT_EQ(names[i], table[i].flag);
}

TEST(PassTable, EveryPipelineParses) {
  llvm::PassBuilder pb;
  for (const PassRow& row : PassTable()) {
    llvm::ModulePassManager mpm;
    auto err = pb.parsePassPipeline(mpm, row.pipeline);
    EXPECT_FALSE(static_cast<bool>(err)) << row.flag << ": " << llvm::toString(std::move(err));
  }
}

TEST(ParameterizedPassTable, EveryRowIsAPipelineActionAndMatchesTheActionSpace) {
  const auto& table = ParameterizedPassTable();
  const auto& names = LlvmEnvSpec().action_spaces.at(1).action_names;
  ASSERT_EQ(names.size(), table.size());
  for (size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(names[i], table[i].flag);
    EXPECT_TRUE(CheckPipelineAction(table[i].pipeline).ok()) << table[i].pipeline;
  }
}

TEST(ParameterizedPassTable, PipelineActionsNestTheTablesPassesOnly) {
  EXPECT_TRUE(CheckPipelineAction("function(sroa,early-cse<memssa>),cgscc(inline)").ok());
  EXPECT_TRUE(CheckPipelineAction("default<Oz>,function(loop-mssa(licm,loop-rotate))").ok());
  EXPECT_TRUE(CheckPipelineAction("instcombine<no-verify-fixpoint;max-iterations=2>").ok());
  const std::pair<const char*, const char*> refused[] = {
      {"function(sroa,print<domtree>)", "at 14: 'print' is not a pass of the table"},
      {"dot-cfg", "'dot-cfg' is not a pass of the table"},
      {"instcombine<verify-fixpoint>", "option 'verify-fixpoint' of 'instcombine'"},
      {"gvn(sroa)", "'gvn' does not nest passes here"},
      {"function(sroa", "expected ')'"},
      {"function(sroa),", "expected a pass name"},
      {"function(ipsccp)", "unknown function pass 'ipsccp'"},
  };
  for (const auto& [pipeline, message] : refused) {
    Status status = CheckPipelineAction(pipeline);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << pipeline;
    EXPECT_NE(status.message().find(message), std::string::npos)
        << pipeline << ": " << status.message();
  }
}

TEST(PassTable, KeepsCompilerGymNamesAndOrder) {
  const auto& table = PassTable();
  EXPECT_EQ(table.front().flag, "-add-discriminators");
  std::set<std::string> flags;
  for (const PassRow& row : table) flags.insert(row.flag);
  for (const char* renamed : {"-early-cse-memssa", "-flattencfg", "-functionattrs",
                              "-loop-unswitch", "-lowerswitch", "-instcombine"}) {
    EXPECT_TRUE(flags.count(renamed)) << renamed;
  }
  for (const char* gone : {"-barrier", "-constprop", "-die", "-ipconstprop", "-loop-reroll",
                           "-prune-eh", "-gvn-sink"}) {
    EXPECT_FALSE(flags.count(gone)) << gone;
  }
  for (const PassRow& row : table) {
    if (row.flag == "-instcombine") {
      EXPECT_NE(row.pipeline.find("no-verify-fixpoint"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace compiler_gym::llvm_env
