// sonde list [GLOB...]: the events -e accepts here, as perf list shows them,
// plus the SDT probes in the probe cache. Exit 1 (after listing the rest)
// when tracepoints cannot be listed: a silently shorter list would mislead.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "commands.h"
#include "probe/probe_cache.h"
#include "record/event_list.h"
#include "record/event_list_json.h"
#include "util/fs.h"
#include "util/error.h"

namespace sonde::cli {

namespace {

struct ListArgs {
  std::vector<std::string> globs;
  std::string buildid_dir;
  bool json = false;
  bool details = false;  // -d: perf's details are PMU encodings and metric expressions, which sonde lists none of
  std::string output;  // -o: instead of standard output
};

// Generic events, tracepoints and the SDT probes the cache knows (sonde sdt
// add, or seen by sonde record) whose names match the globs.
std::vector<record::ListedEvent> listed(const ListArgs& a, const std::vector<std::string>& globs, std::string& problem) {
  auto events = record::list_events(globs, &problem);
  probe::ProbeCache cache(probe::ProbeCache::default_root(a.buildid_dir));
  std::vector<record::ListedEvent> sdt;
  for (const auto& e : cache.index()) {
    std::string name = "%" + e.provider + ":" + e.name;
    if (record::matches_any(name, globs)) sdt.push_back({name, "SDT event", e.path});
  }
  std::sort(sdt.begin(), sdt.end(), [](auto& x, auto& y) { return std::tie(x.name, x.note) < std::tie(y.name, y.note); });
  events.insert(events.end(), sdt.begin(), sdt.end());
  return events;
}

// perf list's event-type words (`sonde list sw tracepoint`) add every
// event of their kinds to what the other words (globs) match: one list, in
// perf's order.
std::vector<record::ListedEvent> selected_events(const ListArgs& a, std::string& problem) {
  std::vector<std::string_view> kinds;
  std::vector<std::string> globs;
  for (const std::string& word : a.globs) {
    auto k = record::kinds_of_category(word);
    if (k.empty()) globs.push_back(word);
    kinds.insert(kinds.end(), k.begin(), k.end());
  }
  if (kinds.empty()) return listed(a, globs, problem);
  std::vector<std::string> matched;
  if (!globs.empty())
    for (const auto& e : listed(a, globs, problem)) matched.push_back(e.name + "\n" + e.note);
  auto events = listed(a, {}, problem);
  std::erase_if(events, [&](const record::ListedEvent& e) {
    return std::find(kinds.begin(), kinds.end(), e.kind) == kinds.end() &&
           std::find(matched.begin(), matched.end(), e.name + "\n" + e.note) == matched.end();
  });
  return events;
}

void run_list(const ListArgs& a) {
  std::string tracefs_problem;
  auto events = selected_events(a, tracefs_problem);
  std::string out = a.json ? record::events_json(events) : std::string();
  for (const auto& e : a.json ? std::vector<record::ListedEvent>{} : events) {
    out += fmt::format("  {:<50} [{}]", e.name, e.kind);
    if (!e.note.empty()) out += fmt::format(" ({})", e.note);
    out += '\n';
  }
  if (!a.output.empty()) {
    write_file_atomic(a.output, out);
  } else if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0) {
    throw_runtime("cannot write the list");
  }
  if (!tracefs_problem.empty()) throw_runtime("tracepoints not listed: {}", tracefs_problem);
}

}  // namespace

void register_list(CLI::App& app, int&) {
  auto a = std::make_shared<ListArgs>();
  auto* cmd = app.add_subcommand("list", "List the events -e accepts here (perf list), and cached SDT probes");
  cmd->add_option("glob", a->globs, "Only names matching these shell patterns, e.g. 'sched:*' '%myapp:*', or of these "
                                    "kinds, as perf: hw, sw, cache, tracepoint, pmu, sdt");
  cmd->add_option("--buildid-dir", a->buildid_dir, "Build-id cache root holding the probe cache");
  cmd->add_flag("-j,--json", a->json, "JSON: an array of {Topic, EventName, EventAlias, EventType, BriefDescription}, as newer perf");
  cmd->add_flag("-d,--details", a->details,
                "perf's details (PMU event encodings, metric expressions): sonde lists no such event, so the list "
                "is the same");
  cmd->add_option("-o,--output", a->output, "Write the list to this file (replaced whole) instead of standard output");
  cmd->callback([a] { run_list(*a); });
}

}  // namespace sonde::cli
