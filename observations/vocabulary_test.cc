// Tests of Vocabulary, HalfToFloat and the package data loaders, on data files written to a
// temporary data directory.
#include "observations/vocabulary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>

#include "engine/sandbox.h"

namespace compiler_gym::observations {
namespace {

TEST(Vocabulary, LookupAndUnknownIsLast) {
  Vocabulary v({"alloca", "store", "ret"});
  EXPECT_EQ(v.size(), 3);
  EXPECT_EQ(v.Lookup("store"), 1);
  EXPECT_EQ(v.Lookup("ret"), 2);
  EXPECT_EQ(v.Lookup("phi"), 3);
  EXPECT_EQ(v.unknown_id(), 3);
}

class DataDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = MakeTempDir("cg-vocab-test");
    ASSERT_TRUE(dir.ok());
    dir_ = *dir;
    SetDataDirectory(dir_);
    ClearVocabularyCache();
  }
  void TearDown() override {
    SetDataDirectory("");
    ClearVocabularyCache();
    RemoveTree(dir_);
  }
  void Write(const std::string& name, const std::string& data) {
    std::filesystem::create_directories(std::filesystem::path(dir_ + "/" + name).parent_path());
    std::ofstream(dir_ + "/" + name, std::ios::binary) << data;
  }
  std::string dir_;
};

TEST_F(DataDirTest, MissingDataSaysWhichFileAndHowToMakeIt) {
  if (std::getenv("COMPILER_GYM_DATA_DIR")) GTEST_SKIP() << "COMPILER_GYM_DATA_DIR is set";
  auto v = ProgramlVocabulary();
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kNotFound);
  EXPECT_NE(v.status().message().find(dir_ + "/programl/vocabulary.txt"), std::string::npos);
  EXPECT_NE(v.status().message().find("train_inst2vec"), std::string::npos);
}

TEST_F(DataDirTest, LoadsVocabulariesAndChecksTheTableSize) {
  if (std::getenv("COMPILER_GYM_DATA_DIR")) GTEST_SKIP() << "COMPILER_GYM_DATA_DIR is set";
  Write("programl/vocabulary.txt", "[external]\ni32\nptr\n");
  auto programl = ProgramlVocabulary();
  ASSERT_TRUE(programl.ok()) << programl.status().ToString();
  EXPECT_EQ((*programl)->Lookup("ptr"), 2);
  EXPECT_EQ((*programl)->Lookup("float"), 3);

  Write("inst2vec/vocabulary.txt", "a\nb\n");
  Write("inst2vec/embeddings.f16", std::string(3 * kInst2vecDim * 2 - 2, '\0'));
  auto bad = Inst2vecModelData();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);

  // Half-precision 1.0 (0x3c00) everywhere except the !UNK row's second value, -2.5 (0xc100).
  std::vector<uint16_t> table(3 * kInst2vecDim, 0x3c00);
  table[kInst2vecDim * 2 + 1] = 0xc100;
  Write("inst2vec/embeddings.f16",
        std::string(reinterpret_cast<const char*>(table.data()), table.size() * 2));
  auto model = Inst2vecModelData();
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ((*model)->vocabulary.size(), 2);
  EXPECT_EQ((*model)->dim, kInst2vecDim);
  EXPECT_EQ((*model)->embeddings[0], 1.0f);
  EXPECT_EQ((*model)->embeddings[kInst2vecDim * 2 + 1], -2.5f);  // !UNK row
}

// Every class of binary16 value: zeros, normals, the largest, subnormals, infinity, NaN.
TEST(HalfToFloat, WidensExactly) {
  EXPECT_EQ(HalfToFloat(0x0000), 0.0f);
  EXPECT_TRUE(std::signbit(HalfToFloat(0x8000)));
  EXPECT_EQ(HalfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(HalfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(HalfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));     // smallest subnormal
  EXPECT_EQ(HalfToFloat(0x03ff), std::ldexp(1023.0f, -24));  // largest subnormal
  EXPECT_EQ(HalfToFloat(0x8200), -std::ldexp(1.0f, -15));
  EXPECT_EQ(HalfToFloat(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7e00)));
}

TEST_F(DataDirTest, DuplicateEntriesAreRefused) {
  if (std::getenv("COMPILER_GYM_DATA_DIR")) GTEST_SKIP() << "COMPILER_GYM_DATA_DIR is set";
  Write("programl/vocabulary.txt", "i32\ni32\n");
  auto v = ProgramlVocabulary();
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace compiler_gym::observations
