// sonde's one-step dynamic probes: `sonde record -e 'probe:BIN:DEF'` (DEF in
// perf probe's syntax, docs/probe.md). The definition is resolved from DWARF
// as `sonde probe` does it, and each site becomes an SDT-like site whose
// arguments are written in the SDT argument language, so SdtExtension
// attaches it with its BPF uprobe_multi link and reads its arguments in BPF:
// nothing goes to tracefs, and nothing is left after exit, an error or
// kill -9. What the BPF recipe can fetch: a register, or memory at a
// register plus an offset followed through up to SONDE_SDT_MAX_DEREFS more
// pointers (`a->b->c`, `arr[N]`, at -O0 and -O2), as integers of 1 to 8
// bytes or as a string (`:string`); the pointer reads and the string flag
// are fields of SdtArg the SDT language itself has no words for.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "probe/sdt_note.h"
#include "probe/trace_probe.h"

namespace sonde::probe {

struct DynamicProbes {
  std::vector<std::string> events;  // -e values, probe: specs rewritten to %GROUP:EVENT@PATH
  std::map<std::string, std::vector<SdtSite>> sites_by_path;  // real path → its sites
};

// "probe:BIN:DEF" where BIN names an existing file (perf's kprobe group
// `probe:` has one colon and no file).
bool is_dynamic_probe_spec(std::string_view event);

// Resolves every probe: spec of `events`. Throws a usage error for a
// definition the one-step route cannot fetch (naming `sonde probe`).
DynamicProbes resolve_dynamic_probes(const std::vector<std::string>& events, const std::string& cache_root);

// One resolved site as an SDT site (provider = group, name = event).
SdtSite to_sdt_site(const TraceProbe& p);

}  // namespace sonde::probe
