// Encoding and decoding of HEADER_FEATURE payloads (perf 6.1 header.c).
// Strings are `u32 len` + text + NUL + zero padding to a multiple of 64.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format/perf_abi.h"

namespace sonde {
class ByteReader;
}

namespace sonde::format {

struct EventDesc {
  perf_event_attr attr;
  std::string name;
  std::vector<uint64_t> ids;
};

class FeatureEncoder {
 public:
  FeatureEncoder& u32(uint32_t v) { return raw(&v, sizeof v); }
  FeatureEncoder& u64(uint64_t v) { return raw(&v, sizeof v); }
  FeatureEncoder& string(std::string_view s);
  FeatureEncoder& string_list(const std::vector<std::string>& list);
  FeatureEncoder& raw(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
    return *this;
  }
  std::span<const uint8_t> bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

std::vector<uint8_t> encode_event_desc(const std::vector<EventDesc>& events);

// One string at the reader: u32 length, text, NUL padding. false if short.
bool read_feature_string(sonde::ByteReader& r, std::string& out);

// Decoders return nullopt on any malformed or truncated payload.
std::optional<std::string> decode_string(std::span<const uint8_t> payload);
std::optional<std::vector<std::string>> decode_string_list(std::span<const uint8_t> payload);
std::optional<std::vector<EventDesc>> decode_event_desc(std::span<const uint8_t> payload);
// HEADER_NRCPUS: (nr_cpus_available, nr_cpus_online).
std::optional<uint32_t> decode_nr_cpus_available(std::span<const uint8_t> payload);
// HEADER_CPU_TOPOLOGY (perf's write_cpu_topology): two lists of sibling
// strings, then (core_id, socket_id) for each of `cpus` CPUs.
struct CpuTopologyEntry {
  int32_t core = -1, socket = -1;
};
std::optional<std::vector<CpuTopologyEntry>> decode_cpu_topology(std::span<const uint8_t> payload, uint32_t cpus);
// HEADER_SAMPLE_TIME: the first and last sample times.
std::optional<std::pair<uint64_t, uint64_t>> decode_sample_time(std::span<const uint8_t> payload);

}  // namespace sonde::format
