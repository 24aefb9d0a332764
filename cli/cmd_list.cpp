// sonde list [GLOB...]: the events -e accepts here, as perf list shows them,
// plus the SDT probes in the probe cache. Exit 1 (after listing the rest)
// when tracepoints cannot be listed: a silently shorter list would mislead.
#include <fmt/format.h>

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
  std::string output;  // -o: instead of standard output
};

void run_list(const ListArgs& a) {
  std::string tracefs_problem;
  auto events = record::list_events(a.globs, &tracefs_problem);
  // SDT probes the cache knows (sonde sdt add, or seen by sonde record).
  probe::ProbeCache cache(probe::ProbeCache::default_root(a.buildid_dir));
  std::vector<record::ListedEvent> sdt;
  for (const auto& e : cache.index()) {
    std::string name = "%" + e.provider + ":" + e.name;
    if (record::matches_any(name, a.globs)) sdt.push_back({name, "SDT event", e.path});
  }
  std::sort(sdt.begin(), sdt.end(), [](auto& x, auto& y) { return std::tie(x.name, x.note) < std::tie(y.name, y.note); });
  events.insert(events.end(), sdt.begin(), sdt.end());

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
  cmd->add_option("glob", a->globs, "Only names matching these shell patterns, e.g. 'sched:*' '%myapp:*'");
  cmd->add_option("--buildid-dir", a->buildid_dir, "Build-id cache root holding the probe cache");
  cmd->add_flag("-j,--json", a->json, "JSON: an array of {Topic, EventName, EventAlias, EventType, BriefDescription}, as newer perf");
  cmd->add_option("-o,--output", a->output, "Write the list to this file (replaced whole) instead of standard output");
  cmd->callback([a] { run_list(*a); });
}

}  // namespace sonde::cli
