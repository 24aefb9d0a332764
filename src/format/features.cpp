#include "format/features.h"

#include <algorithm>
#include <cstring>

#include "format/attr_sizes.h"
#include "util/byte_reader.h"

namespace sonde::format {

FeatureEncoder& FeatureEncoder::string(std::string_view s) {
  uint32_t len = static_cast<uint32_t>((s.size() + 1 + 63) / 64 * 64);
  u32(len);
  raw(s.data(), s.size());
  bytes_.insert(bytes_.end(), len - s.size(), 0);
  return *this;
}

FeatureEncoder& FeatureEncoder::string_list(const std::vector<std::string>& list) {
  u32(static_cast<uint32_t>(list.size()));
  for (const auto& s : list) string(s);
  return *this;
}

std::vector<uint8_t> encode_event_desc(const std::vector<EventDesc>& events) {
  // One attr size for every entry: the largest the events have (each is the
  // size its kernel accepted); smaller attrs are padded with zeros, which
  // is what their missing fields mean.
  uint32_t size = kPerfAttrSizeVer0;
  for (const auto& ev : events) size = std::max(size, attr_size_to_write(ev.attr));
  FeatureEncoder e;
  e.u32(static_cast<uint32_t>(events.size()));
  e.u32(size);
  for (const auto& ev : events) {
    perf_event_attr a = ev.attr;
    a.size = size;
    e.raw(&a, size);
    e.u32(static_cast<uint32_t>(ev.ids.size()));
    e.string(ev.name);
    for (uint64_t id : ev.ids) e.u64(id);
  }
  auto b = e.bytes();
  return {b.begin(), b.end()};
}

bool read_feature_string(ByteReader& r, std::string& out) {
  uint32_t len;
  std::span<const uint8_t> text;
  if (!r.read(len) || !r.bytes(len, text)) return false;
  // The text ends at the first NUL within len bytes.
  const void* nul = std::memchr(text.data(), 0, text.size());
  size_t n = nul ? static_cast<size_t>(static_cast<const uint8_t*>(nul) - text.data()) : text.size();
  out.assign(reinterpret_cast<const char*>(text.data()), n);
  return true;
}

std::optional<std::string> decode_string(std::span<const uint8_t> payload) {
  ByteReader r(payload);
  std::string s;
  if (!read_feature_string(r, s)) return std::nullopt;
  return s;
}

std::optional<std::vector<std::string>> decode_string_list(std::span<const uint8_t> payload) {
  ByteReader r(payload);
  uint32_t nr;
  if (!r.read(nr)) return std::nullopt;
  std::vector<std::string> out;
  for (uint32_t i = 0; i < nr; ++i) {
    std::string s;
    if (!read_feature_string(r, s)) return std::nullopt;
    out.push_back(std::move(s));
  }
  return out;
}

std::optional<std::vector<EventDesc>> decode_event_desc(std::span<const uint8_t> payload) {
  ByteReader r(payload);
  uint32_t nr, attr_size;
  if (!r.read(nr) || !r.read(attr_size)) return std::nullopt;
  std::vector<EventDesc> out;
  for (uint32_t i = 0; i < nr; ++i) {
    EventDesc d{};
    // Entries are attr_size bytes apart, whatever each attr.size says (perf's
    // read_event_desc); the attr itself is read by its own size.
    std::span<const uint8_t> attr_bytes;
    if (!r.bytes(attr_size, attr_bytes) || read_attr(attr_bytes, d.attr, nullptr) == 0) return std::nullopt;
    uint32_t nr_ids;
    if (!r.read(nr_ids) || !read_feature_string(r, d.name)) return std::nullopt;
    if (nr_ids > r.remaining() / 8) return std::nullopt;
    for (uint32_t j = 0; j < nr_ids; ++j) {
      uint64_t id = 0;
      r.read(id);
      d.ids.push_back(id);
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::optional<uint32_t> decode_nr_cpus_available(std::span<const uint8_t> payload) {
  ByteReader r(payload);
  uint32_t n = 0;
  if (!r.read(n)) return std::nullopt;
  return n;
}

std::optional<std::vector<CpuTopologyEntry>> decode_cpu_topology(std::span<const uint8_t> payload, uint32_t cpus) {
  ByteReader r(payload);
  std::string s;
  for (int list = 0; list < 2; ++list) {
    uint32_t n = 0;
    if (!r.read(n)) return std::nullopt;
    for (uint32_t i = 0; i < n; ++i)
      if (!read_feature_string(r, s)) return std::nullopt;
  }
  if (cpus > r.remaining() / 8) return std::nullopt;
  std::vector<CpuTopologyEntry> out(cpus);
  for (auto& c : out) r.read(c.core), r.read(c.socket);
  return out;
}

std::optional<std::pair<uint64_t, uint64_t>> decode_sample_time(std::span<const uint8_t> payload) {
  ByteReader r(payload);
  uint64_t first = 0, last = 0;
  if (!r.read(first) || !r.read(last)) return std::nullopt;
  return std::pair{first, last};
}

}  // namespace sonde::format
