#include "probe/sdt_format.h"

#include <fmt/format.h>

#include <linux/perf_event.h>

#include <cstring>

#include "probe/sdt_abi.h"
#include "util/byte_reader.h"

namespace sonde::probe {

std::optional<std::string> format_sdt_raw(std::span<const uint8_t> raw) {
  if (raw.size() < sizeof(sonde_sdt_raw)) return std::nullopt;
  sonde_sdt_raw r;
  std::memcpy(&r, raw.data(), sizeof r);
  if (r.magic != SONDE_SDT_MAGIC || r.version != 1 || r.nargs > SONDE_SDT_MAX_ARGS) return std::nullopt;
  std::string out;
  for (unsigned i = 0; i < r.nargs; ++i) {
    uint8_t t = r.types[i];
    uint64_t v = r.values[i];
    unsigned size = t & SONDE_SDT_TYPE_SIZE_MASK;
    if (t & SONDE_SDT_TYPE_FAULT) {
      out += fmt::format(" arg{}=?", i + 1);
    } else if ((t & SONDE_SDT_TYPE_FLOAT) && size == 8) {
      double d;
      std::memcpy(&d, &v, 8);
      out += fmt::format(" arg{}={}", i + 1, d);
    } else if ((t & SONDE_SDT_TYPE_FLOAT) && size == 4) {
      uint32_t bits = static_cast<uint32_t>(v);
      float f;
      std::memcpy(&f, &bits, 4);
      out += fmt::format(" arg{}={}", i + 1, f);
    } else if (t & SONDE_SDT_TYPE_SIGNED) {
      out += fmt::format(" arg{}={}", i + 1, static_cast<int64_t>(v));  // sign-extended by the program
    } else {
      out += fmt::format(" arg{}={}", i + 1, v);
    }
  }
  return out;
}

std::optional<std::string> format_sdt_args(const perf::Sample& sample) {
  if (sample.event && (sample.event->attr.type != PERF_TYPE_SOFTWARE ||
                       sample.event->attr.config != PERF_COUNT_SW_BPF_OUTPUT))
    return std::nullopt;
  return format_sdt_raw(sample.raw);
}

bool sdt_extra_fields(const perf::Sample& sample, std::string& out) {
  auto text = format_sdt_args(sample);
  if (!text || text->empty()) return false;
  out.assign(*text, 1);  // the printer adds the separating space
  return true;
}

}  // namespace sonde::probe
