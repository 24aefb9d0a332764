// parse_uint / parse_int: the whole text is a number in range, or a reason.
#include "util/parse_int.h"

#include <gtest/gtest.h>
#include <sys/types.h>

#include <cstdint>

namespace sonde {
namespace {

TEST(ParseInt, DecimalInRange) {
  auto v = parse_uint<uint64_t>("4096");
  ASSERT_TRUE(v);
  EXPECT_EQ(v.value, 4096u);
  EXPECT_EQ(parse_uint<uint64_t>("18446744073709551615").value, UINT64_MAX);
  EXPECT_EQ(parse_uint<unsigned>("0").value, 0u);
  EXPECT_EQ(parse_uint<unsigned>("007").value, 7u);  // leading zeros are digits
}

TEST(ParseInt, EmptyAndJunkAreNotNumbers) {
  EXPECT_EQ(parse_uint<uint64_t>("").error, IntError::Empty);
  for (const char* bad : {"12a", "a12", " 12", "12 ", "+12", "-12", "1.5", "0x10", "١٢"})
    EXPECT_EQ(parse_uint<uint64_t>(bad).error, IntError::NotANumber) << bad;
  EXPECT_EQ(parse_int<int>("--1").error, IntError::NotANumber);
  EXPECT_EQ(parse_int<int>("+1").error, IntError::NotANumber);
}

TEST(ParseInt, RangeErrorsSayWhichSide) {
  auto low = parse_uint<unsigned>("0", 1, 12);
  EXPECT_EQ(low.error, IntError::BelowMin);
  EXPECT_EQ(low.reason(), "is below 1");
  auto high = parse_uint<unsigned>("13", 1, 12);
  EXPECT_EQ(high.error, IntError::AboveMax);
  EXPECT_EQ(high.reason(), "is above 12");
  EXPECT_TRUE(parse_uint<unsigned>("12", 1, 12));
  EXPECT_TRUE(parse_uint<unsigned>("1", 1, 12));
}

TEST(ParseInt, TooLargeForTheTypeIsAboveMax) {
  EXPECT_EQ(parse_uint<uint64_t>("18446744073709551616").error, IntError::AboveMax);
  EXPECT_EQ(parse_uint<uint8_t>("256").error, IntError::AboveMax);
  EXPECT_EQ(parse_int<int32_t>("2147483648").error, IntError::AboveMax);
  EXPECT_EQ(parse_int<int32_t>("-2147483649").error, IntError::BelowMin);
}

TEST(ParseInt, SignedTakesAMinus) {
  EXPECT_EQ(parse_int<int>("-5").value, -5);
  EXPECT_EQ(parse_int<pid_t>("-5", 1).error, IntError::BelowMin);
  EXPECT_EQ(parse_int<pid_t>("1234", 1).value, 1234);
}

TEST(ParseInt, HexWithAndWithoutPrefix) {
  EXPECT_EQ(parse_uint<uint64_t>("7f3aFF", 0, UINT64_MAX, IntSyntax::Hex).value, 0x7f3affu);
  EXPECT_EQ(parse_uint<uint64_t>("0x10", 0, UINT64_MAX, IntSyntax::Hex).error, IntError::NotANumber);
  EXPECT_EQ(parse_uint<uint64_t>("0x10", 0, UINT64_MAX, IntSyntax::HexOr0x).value, 0x10u);
  EXPECT_EQ(parse_uint<uint64_t>("0X10", 0, UINT64_MAX, IntSyntax::HexOr0x).value, 0x10u);
  EXPECT_EQ(parse_uint<uint64_t>("10", 0, UINT64_MAX, IntSyntax::HexOr0x).value, 0x10u);
  EXPECT_EQ(parse_uint<uint64_t>("0x", 0, UINT64_MAX, IntSyntax::HexOr0x).error, IntError::Empty);
  EXPECT_EQ(parse_uint<uint64_t>("0x0x1", 0, UINT64_MAX, IntSyntax::HexOr0x).error, IntError::NotANumber);
  EXPECT_EQ(parse_uint<uint64_t>("ffffffffffffffff", 0, UINT64_MAX, IntSyntax::Hex).value, UINT64_MAX);
  EXPECT_EQ(parse_uint<uint64_t>("10000000000000000", 0, UINT64_MAX, IntSyntax::Hex).error, IntError::AboveMax);
  EXPECT_EQ(parse_uint<uint64_t>("g", 0, UINT64_MAX, IntSyntax::Hex).error, IntError::NotANumber);
}

TEST(ParseInt, IntoSetsTheValueOnlyWhenValid) {
  uint32_t v = 7;
  EXPECT_FALSE(parse_uint_into("zz", v, IntSyntax::Hex));
  EXPECT_EQ(v, 7u);
  EXPECT_TRUE(parse_uint_into("fd", v, IntSyntax::Hex));
  EXPECT_EQ(v, 0xfdu);
  EXPECT_FALSE(parse_uint_into("4294967296", v));
  EXPECT_EQ(v, 0xfdu);
}

TEST(ParseInt, ReasonsReadAsSentences) {
  EXPECT_EQ(parse_uint<unsigned>("").reason(), "is empty");
  EXPECT_EQ(parse_uint<unsigned>("x").reason(), "is not a number");
}

}  // namespace
TEST(ParseByteSize, PerfsBinaryTags) {
  EXPECT_EQ(parse_byte_size("4096", 1, UINT64_MAX), 4096u);
  EXPECT_EQ(parse_byte_size("512B", 1, UINT64_MAX), 512u);
  EXPECT_EQ(parse_byte_size("16K", 1, UINT64_MAX), 16u << 10);
  EXPECT_EQ(parse_byte_size("100M", 1, UINT64_MAX), 100ull << 20);
  EXPECT_EQ(parse_byte_size("2G", 1, UINT64_MAX), 2ull << 30);
}

TEST(ParseByteSize, MalformedOrOutOfRangeIsNothing) {
  for (const char* bad : {"", "M", "16k", "1.5M", "-1K", "16KB", "0K", " 1M", "99999999999999999999G"})
    EXPECT_FALSE(parse_byte_size(bad, 1, UINT64_MAX).has_value()) << bad;
  EXPECT_FALSE(parse_byte_size("65G", 1, 64ull << 30).has_value());
  EXPECT_EQ(parse_byte_size("64G", 1, 64ull << 30), 64ull << 30);
}

}  // namespace sonde
