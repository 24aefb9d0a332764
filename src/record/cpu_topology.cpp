#include "record/cpu_topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "format/features.h"
#include "util/fs.h"
#include "util/parse_int.h"

namespace sonde::record {

namespace {

std::optional<std::string> topology_file(const std::string& dir, uint32_t cpu, const char* name) {
  auto text = read_small_file(fmt::format("{}/cpu{}/topology/{}", dir, cpu, name));
  if (!text) return std::nullopt;
  while (!text->empty() && (text->back() == '\n' || text->back() == ' ')) text->pop_back();
  return text;
}

int32_t topology_id(const std::string& dir, uint32_t cpu, const char* name) {
  auto text = topology_file(dir, cpu, name);
  if (!text) return -1;
  auto v = parse_int<int32_t>(*text);
  return v ? v.value : -1;
}

// Each distinct list once, in CPU order (perf's build_cpu_topology).
std::vector<std::string> sibling_lists(const std::string& dir, uint32_t cpus, const char* name, const char* old_name) {
  std::vector<std::string> out;
  for (uint32_t cpu = 0; cpu < cpus; ++cpu) {
    auto list = topology_file(dir, cpu, name);
    if (!list && old_name) list = topology_file(dir, cpu, old_name);
    if (list && std::find(out.begin(), out.end(), *list) == out.end()) out.push_back(*list);
  }
  return out;
}

}  // namespace

std::vector<uint8_t> encode_cpu_topology(uint32_t cpus, const std::string& dir) {
  if (!topology_file(dir, 0, "core_id")) return {};
  format::FeatureEncoder e;
  e.string_list(sibling_lists(dir, cpus, "package_cpus_list", "core_siblings_list"));
  e.string_list(sibling_lists(dir, cpus, "core_cpus_list", "thread_siblings_list"));
  for (uint32_t cpu = 0; cpu < cpus; ++cpu) {
    e.u32(static_cast<uint32_t>(topology_id(dir, cpu, "core_id")));
    e.u32(static_cast<uint32_t>(topology_id(dir, cpu, "physical_package_id")));
  }
  // perf writes dies on x86-64 (and s390x) when the kernel has them.
#if defined(__x86_64__) || defined(__s390x__)
  const bool dies = topology_file(dir, 0, "die_cpus_list").has_value();
#else
  const bool dies = false;
#endif
  if (dies) {
    e.string_list(sibling_lists(dir, cpus, "die_cpus_list", nullptr));
    for (uint32_t cpu = 0; cpu < cpus; ++cpu) e.u32(static_cast<uint32_t>(topology_id(dir, cpu, "die_id")));
  }
  auto bytes = e.bytes();
  return {bytes.begin(), bytes.end()};
}

}  // namespace sonde::record
