#include <gtest/gtest.h>

#include "util/byte_reader.h"

using sonde::ByteReader;

TEST(ByteReader, ReadsWithinBoundsAndRefusesPastTheEnd) {
  const uint8_t data[] = {1, 0, 0, 0, 'h', 'i', 0, 9};
  ByteReader r(data, sizeof data);
  uint32_t v = 0;
  ASSERT_TRUE(r.read(v));
  EXPECT_EQ(v, 1u);
  std::string_view s;
  ASSERT_TRUE(r.cstring(s));
  EXPECT_EQ(s, "hi");
  uint64_t big;
  EXPECT_FALSE(r.read(big));  // one byte left
  EXPECT_EQ(r.remaining(), 1u);
  std::span<const uint8_t> b;
  EXPECT_FALSE(r.bytes(2, b));
  EXPECT_TRUE(r.bytes(1, b));
  EXPECT_EQ(b[0], 9);
}

TEST(ByteReader, UnterminatedStringIsRejected) {
  const uint8_t data[] = {'a', 'b', 'c'};
  ByteReader r(data, sizeof data);
  std::string_view s;
  EXPECT_FALSE(r.cstring(s));
  EXPECT_EQ(r.remaining(), 3u);
}
