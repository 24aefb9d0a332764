// What `sonde list` shows: the events `-e` accepts on this machine, as
// `perf list` names them. Hardware events are probed with perf_event_open
// and, on a machine without a PMU, listed with a note saying so rather than
// left out (a user looking for `cycles` learns why it will not work).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sonde::record {

struct ListedEvent {
  std::string name;  // "context-switches OR cs", "sched:sched_switch", "%myapp:request"
  std::string kind;  // "Software event", "Hardware event", "Tracepoint event", "SDT event"
  std::string note;  // "" or why it cannot be used here
};

// Generic events and tracepoints whose name (or one of its aliases) matches
// one of the fnmatch `globs` (all when empty), in perf's order: hardware,
// software, then tracepoints by system and name. Tracepoints need tracefs;
// when it cannot be mounted, `*tracefs_problem` says why and none are listed.
std::vector<ListedEvent> list_events(const std::vector<std::string>& globs, std::string* tracefs_problem);

// perf list's event-type words (hw, sw, cache, tracepoint, pmu, sdt and
// their long forms): the kinds each lists ("sw": software and tool events);
// empty for any other word (a glob).
std::vector<std::string_view> kinds_of_category(std::string_view word);

// True when `name` matches one of `globs` (or `globs` is empty).
bool matches_any(const std::string& name, const std::vector<std::string>& globs);

}  // namespace sonde::record
