#include "probe/sdt_format.h"

#include <fmt/format.h>

#include <cstring>

#include "format/session.h"
#include "format/uapi/perf_event.h"
#include "probe/sdt_abi.h"
#include "util/byte_reader.h"

namespace sonde::probe {

bool decode_sdt_values(std::span<const uint8_t> raw, std::vector<SdtValue>& out) {
  out.clear();
  if (raw.size() < sizeof(sonde_sdt_raw)) return false;
  sonde_sdt_raw r;
  std::memcpy(&r, raw.data(), sizeof r);
  if (r.magic != SONDE_SDT_MAGIC || r.version != 1 || r.nargs > SONDE_SDT_MAX_ARGS) return false;
  const std::span<const uint8_t> strings = raw.subspan(sizeof r);
  for (unsigned i = 0; i < r.nargs; ++i) {
    const uint8_t t = r.types[i];
    SdtValue v{r.values[i], static_cast<uint8_t>(t & SONDE_SDT_TYPE_SIZE_MASK), (t & SONDE_SDT_TYPE_SIGNED) != 0,
               (t & SONDE_SDT_TYPE_FLOAT) != 0, (t & SONDE_SDT_TYPE_FAULT) != 0, false, {}};
    if ((t & SONDE_SDT_TYPE_STRING) && !v.fault) {
      // offset | length << 32 into the bytes after the header: never trusted
      // beyond what the payload holds.
      const uint64_t off = r.values[i] & 0xffffffffu, len = r.values[i] >> 32;
      if (off > strings.size() || len > strings.size() - off) return false;
      v.is_string = true;
      v.text = std::string_view(reinterpret_cast<const char*>(strings.data() + off), len);
    }
    out.push_back(v);
  }
  return true;
}

double sdt_float(const SdtValue& v) {
  if (v.size == 4) {
    uint32_t bits = static_cast<uint32_t>(v.bits);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  double d;
  std::memcpy(&d, &v.bits, 8);
  return d;
}

std::optional<std::string> format_sdt_raw(std::span<const uint8_t> raw) {
  thread_local std::vector<SdtValue> values;
  if (!decode_sdt_values(raw, values)) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    const SdtValue& v = values[i];
    if (v.fault) out += fmt::format(" arg{}=?", i + 1);
    else if (v.is_string) out += fmt::format(" arg{}=\"{}\"", i + 1, v.text);  // as the kernel prints strings
    else if (v.is_float && v.size == 4) out += fmt::format(" arg{}={}", i + 1, static_cast<float>(sdt_float(v)));
    else if (v.is_float && v.size == 8) out += fmt::format(" arg{}={}", i + 1, sdt_float(v));
    else if (v.is_signed) out += fmt::format(" arg{}={}", i + 1, static_cast<int64_t>(v.bits));  // sign-extended by the program
    else out += fmt::format(" arg{}={}", i + 1, v.bits);
  }
  return out;
}

bool is_sdt_sample(const format::Sample& sample) {
  return sample.event && sample.event->kind == format::EventKind::kSdtHit;
}

std::optional<std::string> format_sdt_args(const format::Sample& sample) {
  if (sample.event && !is_sdt_sample(sample)) return std::nullopt;
  return format_sdt_raw(sample.raw);
}

bool sdt_extra_fields(const format::Sample& sample, std::string& out) {
  auto text = format_sdt_args(sample);
  if (!text || text->empty()) return false;
  out.assign(*text, 1);  // the printer adds the separating space
  return true;
}

}  // namespace sonde::probe
