// An SDT hit's RAW payload with string arguments (sdt_abi.h): each string's
// value points into the bytes after the header, and is never trusted beyond
// what the payload holds.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "probe/sdt_abi.h"
#include "probe/sdt_format.h"

namespace {

std::vector<uint8_t> payload(uint64_t value, const std::string& tail) {
  sonde_sdt_raw r{};
  r.magic = SONDE_SDT_MAGIC;
  r.version = 1;
  r.nargs = 2;
  r.types[0] = 4 | SONDE_SDT_TYPE_SIGNED;
  r.values[0] = static_cast<uint64_t>(-7);
  r.types[1] = 8 | SONDE_SDT_TYPE_STRING;
  r.values[1] = value;
  std::vector<uint8_t> out(sizeof r + tail.size());
  std::memcpy(out.data(), &r, sizeof r);
  if (!tail.empty()) std::memcpy(out.data() + sizeof r, tail.data(), tail.size());
  return out;
}

}  // namespace

TEST(SdtRawStrings, AStringIsPrintedFromTheBytesAfterTheHeader) {
  auto raw = payload(6 | (5ull << 32), std::string("first\0green\0", 12));
  EXPECT_EQ(sonde::probe::format_sdt_raw(raw), " arg1=-7 arg2=\"green\"");
}

TEST(SdtRawStrings, AStringBeyondThePayloadIsRefused) {
  for (uint64_t value : {6 | (7ull << 32), 13ull, (1ull << 32) | 0xffffffffull, ~0ull}) {
    auto raw = payload(value, std::string("first\0green\0", 12));
    EXPECT_EQ(sonde::probe::format_sdt_raw(raw), std::nullopt) << std::hex << value;
  }
}

TEST(SdtRawStrings, AFaultedStringPrintsAsUnreadable) {
  auto raw = payload(0, "");
  raw[offsetof(sonde_sdt_raw, types) + 1] |= SONDE_SDT_TYPE_FAULT;
  EXPECT_EQ(sonde::probe::format_sdt_raw(raw), " arg1=-7 arg2=?");
}
