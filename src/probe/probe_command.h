// `sonde probe`'s operations (cli/cmd_probe.cpp only parses options):
// define tracefs uprobe events from perf-syntax definitions, print their
// definitions, list and delete them, and the listings of a binary.
#pragma once

#include <string>
#include <vector>

#include "probe/trace_probe.h"

namespace sonde::probe {

struct ProbeRequest {
  std::string binary;      // -x
  std::string definition;  // the words joined by spaces
  bool force = false;      // -f
  std::string cache_root;  // build-id cache (debug files, --cache)
};

// Resolves the definition (nothing is registered): perf probe -D.
std::vector<TraceProbe> resolve_probes(const ProbeRequest& req);
// Resolves and defines the events; returns them as added.
std::vector<TraceProbe> add_probes(const ProbeRequest& req);
// perf's "Added new event(s): ..." text for stderr.
std::string added_text(const std::vector<TraceProbe>& added);

// perf probe -l: "  GROUP:EVENT (on POINT in PATH with ARGS)" per site,
// for events matching the GROUP:EVENT glob ("" = all).
std::string list_probes_text(const std::string& filter, const std::string& cache_root);

}  // namespace sonde::probe
