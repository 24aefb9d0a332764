#include "probe/log2_hist.h"

#include <fmt/format.h>

#include <bit>

namespace sonde::probe {

namespace {

// bpftrace's bounds: 1, 2, 4 ... 512, 1K, 2K ... 512K, 1M ... 8E.
std::string power_text(unsigned k) {
  static constexpr const char* kSuffix[] = {"", "K", "M", "G", "T", "P", "E"};
  return fmt::format("{}{}", uint64_t{1} << (k % 10), kSuffix[k / 10]);
}

}  // namespace

void Log2Hist::add_unsigned(uint64_t v) {
  ++buckets[v == 0 ? 1 : 2 + static_cast<size_t>(63 - std::countl_zero(v))];
}

std::string Log2Hist::label(size_t i) {
  if (i == 0) return "(..., 0)";
  if (i == 1) return "[0]";
  if (i == 2) return "[1]";
  const unsigned k = static_cast<unsigned>(i - 2);
  return fmt::format("[{}, {})", power_text(k), k == 63 ? std::string("16E") : power_text(k + 1));
}

void Log2Hist::print(std::string& out, const std::string& indent) const {
  size_t lo = 0, hi = 0;
  uint64_t top = 0;
  bool any = false;
  for (size_t b = 0; b < buckets.size(); ++b) {
    if (!buckets[b]) continue;
    if (!any) lo = b;
    any = true;
    hi = b;
    top = std::max(top, buckets[b]);
  }
  for (size_t b = lo; any && b <= hi; ++b) {
    const size_t bar = static_cast<size_t>(buckets[b] * 52 / top);
    out += fmt::format("{}{:<18} {:>8} |{:<52}|\n", indent, label(b), buckets[b], std::string(bar, '@'));
  }
}

}  // namespace sonde::probe
