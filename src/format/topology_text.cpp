#include "format/topology_text.h"

#include <fmt/format.h>

#include <vector>

#include "format/features.h"
#include "util/byte_reader.h"

namespace sonde::format {

namespace {

// A u32 count, then that many perf strings; nullopt when cut short.
std::optional<std::vector<std::string>> read_list(ByteReader& r) {
  uint32_t n = 0;
  if (!r.read(n) || n > r.remaining() / 4) return std::nullopt;
  std::vector<std::string> out(n);
  for (auto& s : out)
    if (!read_feature_string(r, s)) return std::nullopt;
  return out;
}

}  // namespace

std::optional<std::string> cpu_topology_text(std::span<const uint8_t> payload, uint32_t cpus) {
  ByteReader r(payload);
  auto cores = read_list(r);
  auto threads = cores ? read_list(r) : std::nullopt;
  if (!threads || cpus > r.remaining() / 8) return std::nullopt;
  std::vector<std::pair<uint32_t, uint32_t>> ids(cpus);  // (core, socket)
  for (auto& [core, socket] : ids) r.read(core), r.read(socket);
  // Linux 5.2's die lists and ids follow, when the writer knew them.
  auto dies = r.remaining() ? read_list(r) : std::nullopt;
  std::vector<uint32_t> die_ids(cpus);
  bool with_dies = dies && !dies->empty() && cpus <= r.remaining() / 4;
  if (with_dies)
    for (auto& d : die_ids) r.read(d);
  std::string out;
  for (const auto& s : *cores) out += fmt::format("# sibling sockets : {}\n", s);
  if (with_dies)
    for (const auto& s : *dies) out += fmt::format("# sibling dies    : {}\n", s);
  for (const auto& s : *threads) out += fmt::format("# sibling threads : {}\n", s);
  for (uint32_t i = 0; i < cpus; ++i) {
    if (with_dies)
      out += fmt::format("# CPU {}: Core ID {}, Die ID {}, Socket ID {}\n", i, int32_t(ids[i].first), die_ids[i],
                         int32_t(ids[i].second));
    else
      out += fmt::format("# CPU {}: Core ID {}, Socket ID {}\n", i, int32_t(ids[i].first), int32_t(ids[i].second));
  }
  return out;
}

}  // namespace sonde::format
