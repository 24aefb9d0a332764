#include "probe/probe_command.h"

#include <fnmatch.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>

#include "probe/dwarf_probe_finder.h"
#include "probe/probe_definition.h"
#include "probe/uprobe_events.h"
#include "util/error.h"

namespace sonde::probe {

std::vector<TraceProbe> resolve_probes(const ProbeRequest& req) {
  if (req.binary.empty()) throw_usage("probe: -x BINARY is needed (only user-space probes: kprobes do not work here)");
  ProbeDefinition def = parse_probe_definition(req.definition);
  ProbeFinder finder(req.binary, req.cache_root);
  return finder.find(def);
}

std::vector<TraceProbe> add_probes(const ProbeRequest& req) { return add_uprobe_events(resolve_probes(req), req.force); }

std::string added_text(const std::vector<TraceProbe>& added) {
  std::string s = added.size() == 1 ? "Added new event:\n" : "Added new events:\n";
  for (const auto& p : added) {
    s += fmt::format("  {:<20} (on {} in {}", p.group + ":" + p.event, p.point, p.path);
    s += p.arg_names.empty() ? ")\n" : " with " + p.arg_names + ")\n";
  }
  if (!added.empty())
    s += fmt::format("\nYou can now use it in all perf tools, such as:\n\n\tsonde record -e {}:{} -- COMMAND\n\n",
                     added.front().group, added.front().event);
  return s;
}

namespace {

// The kernel's argument names (argN for unnamed ones), perf -l's "with".
std::string arg_names(const TraceProbe& p) {
  std::string s;
  for (size_t i = 0; i < p.args.size(); ++i)
    s += (s.empty() ? "" : " ") + (p.args[i].name.empty() ? "arg" + std::to_string(i + 1) : p.args[i].name);
  return s;
}

}  // namespace

std::string list_probes_text(const std::string& filter, const std::string& cache_root) {
  std::map<std::string, std::unique_ptr<ProbeFinder>> finders;  // one per binary
  std::string out;
  std::string gg = "*", eg = filter.empty() ? "*" : filter;
  if (size_t c = filter.find(':'); c != std::string::npos) gg = filter.substr(0, c), eg = filter.substr(c + 1);
  auto events = list_uprobe_events();
  // perf lists the kernel's lines sorted as text (its strlist).
  std::sort(events.begin(), events.end(), [](const TraceProbe& a, const TraceProbe& b) { return a.raw < b.raw; });
  for (const auto& p : events) {
    if (fnmatch(gg.c_str(), p.group.c_str(), 0) != 0 || fnmatch(eg.c_str(), p.event.c_str(), 0) != 0) continue;
    auto& f = finders[p.path];
    std::string point;
    try {
      if (!f) f = std::make_unique<ProbeFinder>(p.path, cache_root);
      point = f->describe(p.offset, p.retprobe);
    } catch (const Error&) {
      point = fmt::format("0x{:x}", p.offset);  // the binary is gone or unreadable
    }
    out += fmt::format("  {:<20} (on {} in {}", p.group + ":" + p.event, point, p.path);
    std::string names = arg_names(p);
    out += names.empty() ? ")\n" : " with " + names + ")\n";
  }
  return out;
}

}  // namespace sonde::probe
