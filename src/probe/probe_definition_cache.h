// `sonde probe --cache`: perf probe definitions kept in the build-id cache
// (the `#` entries of ROOT/PATH/BUILDID/probes, probes_file.h), so a
// definition resolved once is found again by the binary's build-id, also
// after the binary moved, and perf probe --cache reads sonde's entries and
// sonde reads perf's.
#pragma once

#include <string>
#include <vector>

#include "probe/probe_command.h"
#include "probe/trace_probe.h"

namespace sonde::probe {

// Defines the events (as add_probes) and stores the definition in the
// binary's cache entry (the binary itself is cached too, as perf does),
// replacing an entry with the same definition text. Returns the events.
std::vector<TraceProbe> cache_probes(const ProbeRequest& req);

// perf probe --cache --list: "PATH (BUILDID):" then one definition per line,
// for every cached binary with definitions (SDT ones as sdt_PROV:NAME=NAME).
std::string cached_probes_text(const std::string& cache_root);

// perf probe --cache --del: removes the cached definitions whose events match
// [GROUP:]EVENT globs, in every cached binary. Returns "GROUP:EVENT" names.
std::vector<std::string> delete_cached_probes(const std::vector<std::string>& globs, const std::string& cache_root);

// `sonde probe -x BIN %[GROUP:]EVENT`: defines the cached events of BIN's
// build-id matching the glob, at BIN's current path. Returns them as added.
std::vector<TraceProbe> add_cached_probes(const ProbeRequest& req);

}  // namespace sonde::probe
