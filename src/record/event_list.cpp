#include "record/event_list.h"

#include <dirent.h>
#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>

#include "format/event_names.h"
#include "format/uapi/perf_event.h"
#include "kernel/perf_event.h"
#include "record/tracing_data.h"
#include "util/error.h"

namespace sonde::record {

namespace {

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') out.emplace_back(e->d_name);
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Why a hardware event cannot be opened for this process, or "" if it can.
std::string hardware_problem(const std::string& name, uint64_t config) {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_HARDWARE;
  a.config = config;
  a.disabled = 1;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  try {
    kernel::open_event(a, 0, -1, name);
    return "";
  } catch (const Error& e) {
    return kernel::has_cpu_pmu() ? e.what() : "not supported here: no hardware PMU";
  }
}

}  // namespace

std::vector<std::string_view> kinds_of_category(std::string_view word) {
  if (word == "hw" || word == "hardware") return {"Hardware event"};
  if (word == "sw" || word == "software") return {"Software event", "Tool event"};
  if (word == "cache" || word == "hwcache") return {"Hardware cache event"};
  if (word == "tracepoint") return {"Tracepoint event"};
  if (word == "pmu") return {"Kernel PMU event"};
  if (word == "sdt") return {"SDT event"};
  return {};
}

bool matches_any(const std::string& name, const std::vector<std::string>& globs) {
  if (globs.empty()) return true;
  for (const auto& g : globs)
    if (::fnmatch(g.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

std::vector<ListedEvent> list_events(const std::vector<std::string>& globs, std::string* tracefs_problem) {
  std::vector<ListedEvent> hardware, software;
  const auto all = format::generic_events();
  for (size_t i = 0; i < all.size(); ++i) {
    bool seen = false;  // an alias of an earlier entry
    for (size_t j = 0; j < i; ++j) seen |= all[j].type == all[i].type && all[j].config == all[i].config;
    if (seen) continue;
    std::string label(all[i].name);
    bool match = matches_any(label, globs);
    for (size_t j = i + 1; j < all.size(); ++j) {
      if (all[j].type != all[i].type || all[j].config != all[i].config) continue;
      label += " OR " + std::string(all[j].name);
      match |= matches_any(std::string(all[j].name), globs);
    }
    if (!match) continue;
    if (all[i].type == PERF_TYPE_HARDWARE)
      hardware.push_back({label, "Hardware event", hardware_problem(std::string(all[i].name), all[i].config)});
    else
      software.push_back({label, "Software event", ""});
  }
  std::sort(software.begin(), software.end(), [](auto& a, auto& b) { return a.name < b.name; });
  std::vector<ListedEvent> out = std::move(hardware);
  out.insert(out.end(), software.begin(), software.end());

  std::string root;
  try {
    root = tracefs_root();
  } catch (const Error& e) {
    if (tracefs_problem) *tracefs_problem = e.what();
    return out;
  }
  std::vector<ListedEvent> tracepoints;
  for (const auto& system : entries(root + "/events")) {
    for (const auto& name : entries(root + "/events/" + system)) {
      std::string full = system + ":" + name;
      if (matches_any(full, globs) && ::access((root + "/events/" + system + "/" + name + "/id").c_str(), R_OK) == 0)
        tracepoints.push_back({full, "Tracepoint event", ""});
    }
  }
  // By the whole "system:name", as perf sorts them ("fib6:..." before "fib:...").
  std::sort(tracepoints.begin(), tracepoints.end(), [](auto& a, auto& b) { return a.name < b.name; });
  out.insert(out.end(), tracepoints.begin(), tracepoints.end());
  return out;
}

}  // namespace sonde::record
