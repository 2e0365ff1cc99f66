// SPDX-License-Identifier: Apache-2.0
#include "megatron/python_number.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pipebench {
namespace {

// Each case is what Python 3.11's int() / float() does with the string.
TEST(PythonNumber, IntAcceptsWhatPythonsIntAccepts) {
  EXPECT_EQ(python_int("42"), 42);
  EXPECT_EQ(python_int(" -7\n"), -7);
  EXPECT_EQ(python_int("+3"), 3);
  EXPECT_EQ(python_int("1_000"), 1000);
  EXPECT_EQ(python_int("007"), 7);
  for (const char* bad : {"", " ", "1.0", "1e3", "0x10", "1__0", "_1", "1_", "+-1", "abc", "4 2", "/data/x"})
    EXPECT_FALSE(python_int(bad).has_value()) << bad;
}

TEST(PythonNumber, FloatAcceptsWhatPythonsFloatAccepts) {
  EXPECT_EQ(python_float("6.0e-5"), 6.0e-5);
  EXPECT_EQ(python_float(".001"), 0.001);
  EXPECT_EQ(python_float("5."), 5.0);
  EXPECT_EQ(python_float("1.e5"), 1e5);
  EXPECT_EQ(python_float(" -1_0.5 "), -10.5);
  EXPECT_EQ(python_float("1e-1"), 0.1);
  EXPECT_TRUE(std::isinf(*python_float("-Infinity")));
  EXPECT_TRUE(std::isnan(*python_float("NaN")));
  for (const char* bad : {"", ".", "e5", "1e", "1.5_", "1..5", "0x1p3", "inf1", "1,5", "2.4B:320"})
    EXPECT_FALSE(python_float(bad).has_value()) << bad;
}

}  // namespace
}  // namespace pipebench
