// A power-of-two histogram as bpftrace's hist() keeps and prints it: one
// bucket for negatives, [0], [1], then [2^k, 2^(k+1)) up to [8E, 16E), and
// bars of up to 52 '@' scaled to the fullest bucket.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace sonde::probe {

struct Log2Hist {
  // [0]: negative, [1]: 0, [2]: 1, [2 + k]: [2^k, 2^(k+1)) for k = 1..63.
  std::array<uint64_t, 66> buckets{};

  void add_signed(int64_t v) {
    if (v < 0) ++buckets[0];
    else add_unsigned(static_cast<uint64_t>(v));
  }
  void add_unsigned(uint64_t v);
  // The used range of buckets, one line each, each line starting with `indent`.
  void print(std::string& out, const std::string& indent) const;
  // "(..., 0)", "[0]", "[1]", "[2, 4)", ... "[8E, 16E)".
  static std::string label(size_t bucket);
};

}  // namespace sonde::probe
