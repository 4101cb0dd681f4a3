// Tests of LexIr on IR written inline: the kind table against LLVM's, tokens and their values,
// and errors that name the line.
#include "observations/lexed_ir.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace compiler_gym::observations {
namespace {

TEST(LexedIr, KindTableIsLlvms) {
  const auto& kinds = LexedIrTokenKinds();
  EXPECT_EQ(kinds.front(), "Eof");
  EXPECT_EQ(kinds[2], "dotdotdot");
  EXPECT_EQ(kinds.back(), "APSInt");
  // Attribute keywords come from Attributes.inc inside the enum; the preprocessor must see them.
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "kw_alwaysinline"), kinds.end());
  EXPECT_EQ(LexedIrCategory(0), "marker");
  EXPECT_EQ(LexedIrCategory(3), "punctuation");  // equal
}

// Every token of a two-line function, with its kind, category and value.
TEST(LexedIr, TokensOfASmallFunction) {
  auto lexed = LexIr(
      "define i32 @f(ptr %p) { ; a comment\n"
      "  %x = add nsw i32 %0, -7\n"
      "  store float 1.5, ptr @g, align 4\n"
      "  ret i32 %x\n}\n");
  ASSERT_TRUE(lexed.ok()) << lexed.status().ToString();
  const std::vector<std::string> values = {
      "define", "i32", "@f",  "(",     "ptr", "%p",  ")",     "{",     "%x",  "=",
      "add",    "nsw", "i32", "%0",    ",",   "-7",  "store", "float", "1.5", ",",
      "ptr",    "@g",  ",",   "align", "4",   "ret", "i32",   "%x",    "}"};
  EXPECT_EQ(lexed->token_value, values);
  ASSERT_EQ(lexed->token_kind.size(), values.size());
  EXPECT_EQ(lexed->token_kind[0], "kw_define");
  EXPECT_EQ(lexed->token_category[0], "keyword");
  EXPECT_EQ(lexed->token_kind[1], "Type");
  EXPECT_EQ(lexed->token_category[1], "type");
  EXPECT_EQ(lexed->token_kind[2], "GlobalVar");
  EXPECT_EQ(lexed->token_kind[13], "LocalVarID");
  EXPECT_EQ(lexed->token_category[13], "identifier");
  EXPECT_EQ(lexed->token_kind[15], "APSInt");
  EXPECT_EQ(lexed->token_category[15], "literal");
  EXPECT_EQ(lexed->token_kind[18], "APFloat");
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(LexedIrTokenKinds()[lexed->token_id[i]], lexed->token_kind[i]) << i;
  }
}

TEST(LexedIr, StringsAndLabels) {
  auto lexed = LexIr("@s = constant [3 x i8] c\"hi\\00\"\nbb1:\n");
  ASSERT_TRUE(lexed.ok());
  const auto& kinds = lexed->token_kind;
  ASSERT_GE(kinds.size(), 10u);
  EXPECT_EQ(kinds[8], "kw_c");  // c"..." is the keyword c, then the string
  EXPECT_EQ(kinds[5], "kw_x");
  EXPECT_EQ(kinds[9], "StringConstant");
  EXPECT_EQ(lexed->token_value[9], std::string("hi\0", 3));
  EXPECT_EQ(kinds.back(), "LabelStr");
  EXPECT_EQ(lexed->token_value.back(), "bb1:");
  // The JSON form holds four parallel lists; the NUL survives as an escape.
  auto j = nlohmann::json::parse(LexedIrToJson(*lexed));
  EXPECT_EQ(j["token_kind"].size(), kinds.size());
  EXPECT_EQ(j["token_value"][9].get<std::string>(), std::string("hi\0", 3));
}

TEST(LexedIr, ErrorNamesTheLine) {
  auto lexed = LexIr("define void @f() {\n  ret void\n}\n  %x = add i32 1, 0x\n");
  ASSERT_FALSE(lexed.ok());
  EXPECT_EQ(lexed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(lexed.status().message().find("line 4"), std::string::npos) << lexed.status().message();
}

}  // namespace
}  // namespace compiler_gym::observations
