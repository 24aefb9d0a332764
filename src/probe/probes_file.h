// perf's `probes` file of a build-id cache entry (perf's util/probe-file.c):
// entries, each a header line and the uprobe_events lines it defines:
//
//   #handle_request id=req->id flags                 a `perf probe --cache` definition
//   p:probe_app/handle_request /app:0x12e0 id=+0(%di):s32 flags=%si:s32
//   %sdt_myapp:req_start=req_start                   an SDT probe (sonde sdt, perf buildid-cache)
//   p:sdt_myapp/req_start /app:0x1234(0x4010) arg1=%di:u64
//
// sonde's and perf's entries share the file: each tool rewrites it whole,
// keeping the other kind of entry.
#pragma once

#include <string>
#include <vector>

namespace sonde::probe {

struct ProbesFileEntry {
  bool sdt = false;   // '%' header (SDT), else '#'
  std::string spec;   // the header without its first character
  std::vector<std::string> lines;
};

// Parses the file's text; lines before the first header are dropped (perf
// refuses such a file; sonde keeps what it can read).
std::vector<ProbesFileEntry> parse_probes_file(const std::string& text);
std::string format_probes_file(const std::vector<ProbesFileEntry>& entries);

// The perf-probe entries (`#`) a cached binary's file holds, and updates
// that keep its SDT entries (`%`). `dir` is the ROOT/PATH/BUILDID folder.
std::vector<ProbesFileEntry> read_probes_file(const std::string& dir);
void write_probes_file(const std::string& dir, const std::vector<ProbesFileEntry>& entries);

}  // namespace sonde::probe
