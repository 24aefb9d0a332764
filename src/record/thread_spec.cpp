#include "record/thread_spec.h"

#include <algorithm>
#include <map>

#include "record/cpu_list.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/parse_int.h"

namespace sonde::record {

namespace {

bool contains(const std::vector<int>& sorted, int cpu) { return std::binary_search(sorted.begin(), sorted.end(), cpu); }

// The recorded CPUs grouped by what `key_of(cpu)` says (a sysfs list that
// names the CPU's core, package or node), in order of their first CPU.
template <typename KeyOf>
std::vector<DrainThreadSpec> group_by(const std::vector<int>& recorded, KeyOf key_of) {
  std::map<std::string, size_t> index;
  std::vector<DrainThreadSpec> out;
  for (int cpu : recorded) {
    std::string key = key_of(cpu);
    auto [it, fresh] = index.emplace(key, out.size());
    if (fresh) out.emplace_back();
    out[it->second].cpus.push_back(cpu);
  }
  return out;
}

std::string topology_list(const std::string& sysfs, int cpu, const char* file) {
  std::string path = sysfs + "/cpu/cpu" + std::to_string(cpu) + "/topology/" + file;
  return read_first_line(path).value_or("cpu" + std::to_string(cpu));  // no topology: a group of its own
}

std::string numa_node_of(const std::string& sysfs, int cpu) {
  for (int node = 0; node < 4096; ++node) {
    auto list = read_first_line(sysfs + "/node/node" + std::to_string(node) + "/cpulist");
    if (!list) {
      if (node > 0) break;
      continue;
    }
    try {
      std::vector<int> cpus = parse_cpu_list(*list);
      if (contains(cpus, cpu)) return "node" + std::to_string(node);
    } catch (const Error&) {
      // an offline CPU in the node's list: look at the next node
    }
  }
  return "node0";
}

// "0,2-3", every CPU online.
std::vector<int> cpu_list(std::string_view text, std::string_view spec) {
  if (text.empty()) throw_usage("invalid --threads '{}': empty CPU mask", spec);
  return parse_cpu_list(text);
}

std::vector<DrainThreadSpec> masks(std::string_view spec, const std::vector<int>& recorded) {
  std::vector<DrainThreadSpec> out;
  std::vector<int> seen, seen_affinity;
  size_t pos = 0;
  for (;;) {
    size_t colon = spec.find(':', pos);
    std::string_view item = spec.substr(pos, colon == std::string_view::npos ? std::string_view::npos : colon - pos);
    size_t slash = item.find('/');
    DrainThreadSpec t;
    std::vector<int> cpus = cpu_list(item.substr(0, slash), spec);
    if (slash != std::string_view::npos) t.affinity = cpu_list(item.substr(slash + 1), spec);
    for (int c : cpus) {
      if (contains(seen, c)) throw_usage("invalid --threads '{}': CPU {} is in two masks", spec, c);
      seen.push_back(c);
      if (contains(recorded, c)) t.cpus.push_back(c);
    }
    std::sort(seen.begin(), seen.end());
    for (int c : t.affinity)
      if (std::count(seen_affinity.begin(), seen_affinity.end(), c))
        throw_usage("invalid --threads '{}': CPU {} is in two affinity masks", spec, c);
    seen_affinity.insert(seen_affinity.end(), t.affinity.begin(), t.affinity.end());
    if (t.cpus.empty())
      throw_usage("invalid --threads '{}': mask '{}' has none of the recorded CPUs", spec, item.substr(0, slash));
    out.push_back(std::move(t));
    if (colon == std::string_view::npos) break;
    pos = colon + 1;
  }
  return out;
}

std::vector<DrainThreadSpec> dealt(uint64_t n, const std::vector<int>& recorded) {
  n = std::min<uint64_t>(n, recorded.size());
  std::vector<DrainThreadSpec> out(n);
  for (size_t i = 0; i < recorded.size(); ++i) out[i * n / recorded.size()].cpus.push_back(recorded[i]);
  return out;
}

}  // namespace

std::vector<DrainThreadSpec> parse_thread_spec(std::string_view spec, const std::vector<int>& recorded,
                                               const std::string& sysfs) {
  if (spec == "cpu") return group_by(recorded, [](int cpu) { return std::to_string(cpu); });
  if (spec == "core") return group_by(recorded, [&](int cpu) { return topology_list(sysfs, cpu, "core_cpus_list"); });
  if (spec == "package")
    return group_by(recorded, [&](int cpu) { return topology_list(sysfs, cpu, "package_cpus_list"); });
  if (spec == "numa") return group_by(recorded, [&](int cpu) { return numa_node_of(sysfs, cpu); });
  if (!spec.empty() && spec.find_first_not_of("0123456789") == std::string_view::npos) {
    auto n = parse_uint<uint64_t>(spec, 1, 4096);
    if (!n) throw_usage("invalid --threads '{}': the number of threads must be 1 to 4096", spec);
    return dealt(n.value, recorded);
  }
  if (spec.empty() || spec.find_first_not_of("0123456789,-:/") != std::string_view::npos)
    throw_usage("invalid --threads '{}': expected cpu, core, package, numa, a number of threads, or CPU masks "
                "such as 0-1/0:2-3/2", spec);
  return masks(spec, recorded);
}

}  // namespace sonde::record
