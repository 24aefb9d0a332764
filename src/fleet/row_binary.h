// ClickHouse's RowBinary encoding: little-endian fixed-width numbers,
// LEB128 lengths before strings and arrays.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sonde::fleet {

class RowBinary {
 public:
  void varint(uint64_t v) {
    do {
      uint8_t b = v & 0x7f;
      v >>= 7;
      out_ += char(v ? b | 0x80 : b);
    } while (v);
  }
  void u32(uint32_t v) { out_.append(reinterpret_cast<const char*>(&v), 4); }
  void u64(uint64_t v) { out_.append(reinterpret_cast<const char*>(&v), 8); }
  void str(std::string_view s) {
    varint(s.size());
    out_ += s;
  }
  void strings(const std::vector<std::string>& v) {
    varint(v.size());
    for (const auto& s : v) str(s);
  }
  std::string& data() { return out_; }

 private:
  std::string out_;
};

}  // namespace sonde::fleet
