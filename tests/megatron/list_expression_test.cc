// SPDX-License-Identifier: Apache-2.0
#include "megatron/list_expression.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace pipebench {
namespace {

using List = std::vector<long long>;

List eval(const std::string& text) { return eval_list_expression("--moe-layer-freq", text, 100); }

std::string error(const std::string& text) {
  try {
    (void)eval(text);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ListExpression, ReadsTheExpressionsOfMegatronScripts) {
  EXPECT_EQ(eval("[1,0,1]"), (List{1, 0, 1}));
  EXPECT_EQ(eval("([0]*3+[1]*2)"), (List{0, 0, 0, 1, 1}));
  EXPECT_EQ(eval("([1]*3+[0])*2"), (List{1, 1, 1, 0, 1, 1, 1, 0}));
  EXPECT_EQ(eval("2*[0, 1]"), (List{0, 1, 0, 1}));       // the integer first
  EXPECT_EQ(eval("[0]+[1]*2+[0]"), (List{0, 1, 1, 0}));  // * before +
  EXPECT_EQ(eval(" [ 1 , 0 , ] "), (List{1, 0}));        // spaces, a trailing comma
  EXPECT_EQ(eval("[]*5+[1]"), (List{1}));
  EXPECT_EQ(eval("([0]*0)"), (List{}));
  EXPECT_EQ(eval("[0]*58").size(), 58u);
}

TEST(ListExpression, AnythingElseIsOneLineNamingTheFlag) {
  EXPECT_EQ(error("[1]*3+[x]"),
            "--moe-layer-freq [1]*3+[x]: not a list expression such as ([0]*3+[1]*58) (a number or [ was expected)");
  EXPECT_NE(error("3").find("an integer, not a list"), std::string::npos);
  EXPECT_NE(error("[1]*[2]").find("a list times a list"), std::string::npos);
  EXPECT_NE(error("[1]+2").find("+ joins two lists"), std::string::npos);
  EXPECT_NE(error("([1]").find("a ) is missing"), std::string::npos);
  EXPECT_NE(error("[1 2]").find("a , or ] is missing"), std::string::npos);
  EXPECT_NE(error("[1]*101").find("longer than 100"), std::string::npos);
  EXPECT_NE(error("[1]*99999999999999").find("a number too large"), std::string::npos);
  EXPECT_NE(error("[1]*-1").find("a repetition"), std::string::npos);
  EXPECT_NE(error("__import__('os')").find("not a list expression"), std::string::npos);
  EXPECT_NE(error("[1])").find("unexpected ')'"), std::string::npos);
}

}  // namespace
}  // namespace pipebench
