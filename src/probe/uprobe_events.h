// tracefs' uprobe_events: the probes `sonde probe` (and perf probe) define,
// list and delete. Each definition is written as one line, in perf 6.1's
// form; a failure removes the events this call added, so an error leaves
// nothing registered.
#pragma once

#include <string>
#include <vector>

#include "probe/trace_probe.h"

namespace sonde::probe {

// Every uprobe event defined now (tracefs mounted on demand).
std::vector<TraceProbe> list_uprobe_events();

// Defines `probes` (one definition's sites: they share one event name).
// An event name already defined is a usage error, unless `force`, which
// takes the first free NAME_N as perf -f does. Returns the probes as added
// (final names). Throws a runtime error when the kernel refuses a line,
// after removing what this call added.
std::vector<TraceProbe> add_uprobe_events(std::vector<TraceProbe> probes, bool force);

// Deletes the events matching GROUP:EVENT globs (EVENT alone = any group).
// Returns the "GROUP:EVENT" names removed; a glob matching nothing is a
// usage error. Throws a runtime error when the kernel refuses (busy).
std::vector<std::string> delete_uprobe_events(const std::vector<std::string>& globs);

// Removes one event by exact name; false if the kernel refused or it was
// not there (for guards and rollbacks, which must not throw).
bool remove_uprobe_event(const std::string& group, const std::string& event);

}  // namespace sonde::probe
