#include "cli/value_parse.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>

namespace xfer::cli {
namespace {

struct IntegerCase {
  std::string text;
  int64_t value;
};

// Names the case in test output and ctest.
void PrintTo(const IntegerCase& c, std::ostream* os) { *os << c.text; }

class ParseIntegerTest : public testing::TestWithParam<IntegerCase> {};

TEST_P(ParseIntegerTest, ReadsLikeStrtolBaseZero) {
  Result<int64_t> parsed = ParseInteger(GetParam().text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, GetParam().value);
}

INSTANTIATE_TEST_SUITE_P(
    Values, ParseIntegerTest,
    testing::Values(IntegerCase{"10", 10}, IntegerCase{"0", 0},
                    IntegerCase{"0x1f", 31}, IntegerCase{"0X10", 16},
                    IntegerCase{"010", 8}, IntegerCase{"-5", -5},
                    IntegerCase{"+7", 7},
                    IntegerCase{"9223372036854775807", INT64_MAX}));

struct ErrorCase {
  std::string text;
  std::string message_part;
};

// Names the case in test output and ctest.
void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.text; }

class ParseIntegerErrorTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(ParseIntegerErrorTest, RejectsWithReason) {
  Result<int64_t> parsed = ParseInteger(GetParam().text);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(parsed.status().message().find(GetParam().message_part),
            std::string::npos)
      << parsed.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Errors, ParseIntegerErrorTest,
    testing::Values(ErrorCase{"", "'' is not a number"},
                    ErrorCase{" 5", "not a number"},
                    ErrorCase{"5 ", "not a number"},
                    ErrorCase{"12abc", "'12abc' is not a number"},
                    ErrorCase{"0x", "not a number"}, ErrorCase{"08", "octal"},
                    ErrorCase{"1.5", "'1.5' is not an integer"},
                    ErrorCase{"abc", "'abc' is not a number"},
                    ErrorCase{"99999999999999999999", "too large"}));

TEST(ParseIntegerInRangeTest, EnforcesBothBounds) {
  EXPECT_EQ(*ParseIntegerInRange("5", 5, 10), 5);
  EXPECT_EQ(*ParseIntegerInRange("10", 5, 10), 10);
  Result<int64_t> low = ParseIntegerInRange("4", 5, 10);
  ASSERT_FALSE(low.ok());
  EXPECT_EQ(low.status().message(), "4 is out of range 5..10");
  EXPECT_FALSE(ParseIntegerInRange("11", 5, 10).ok());
  EXPECT_FALSE(ParseIntegerInRange("-1", 0, 10).ok());
}

TEST(ParseByteCountTest, AcceptsKMAndGSuffixes) {
  constexpr int64_t kMax = 2147483647;
  EXPECT_EQ(*ParseByteCount("1G", 1, kMax), 1073741824);
  EXPECT_EQ(*ParseByteCount("1g", 1, kMax), 1073741824);
  EXPECT_EQ(*ParseByteCount("64K", 1, kMax), 65536);
  EXPECT_EQ(*ParseByteCount("64k", 1, kMax), 65536);
  EXPECT_EQ(*ParseByteCount("2M", 1, kMax), 2097152);
  EXPECT_EQ(*ParseByteCount("0x10K", 1, kMax), 16384);
  EXPECT_EQ(*ParseByteCount("2047M", 1, kMax), 2146435072);
  EXPECT_EQ(*ParseByteCount("2147483647", 1, kMax), kMax);
}

TEST(ParseByteCountTest, RejectsBadSizes) {
  constexpr int64_t kMax = 2147483647;
  struct Case {
    const char* text;
    const char* message_part;
  };
  for (const Case& c :
       {Case{"K", "'K' is not a number"}, Case{"1T", "'1T': unknown size suffix 'T'"},
        Case{"4G", "4G is out of range 1..2147483647"},
        Case{"xK", "'xK' is not a number"}, Case{"0", "0 is out of range"},
        Case{"-1K", "-1K is out of range"},
        Case{"2048M", "2048M is out of range"},
        Case{"2147483648", "out of range"},
        Case{"9000000000000000000M", "out of range"}}) {
    Result<int64_t> parsed = ParseByteCount(c.text, 1, kMax);
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_NE(parsed.status().message().find(c.message_part), std::string::npos)
        << c.text << ": " << parsed.status().message();
  }
}

TEST(ParsePositiveSecondsTest, AcceptsPositiveDecimals) {
  EXPECT_DOUBLE_EQ(*ParsePositiveSeconds("10", 1e6), 10.0);
  EXPECT_DOUBLE_EQ(*ParsePositiveSeconds("0.5", 1e6), 0.5);
  EXPECT_DOUBLE_EQ(*ParsePositiveSeconds("1e2", 1e6), 100.0);
}

TEST(ParsePositiveSecondsTest, RejectsZeroNegativeAndNonFinite) {
  for (const char* text : {"0", "-1", "inf", "nan", "abc", "", "1e7", "5s"}) {
    Result<double> parsed = ParsePositiveSeconds(text, 1e6);
    EXPECT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument) << text;
  }
}

}  // namespace
}  // namespace xfer::cli
