// `--header` / `--header-only`: a recording's header facts as perf 6.1
// prints them (util/header.c: perf_header__fprintf_info and each feature's
// print function): the file header's numbers, then one or more lines per
// feature in feature order; a file-mode recording also lists the features
// it lacks. CPU_TOPOLOGY, NUMA_TOPOLOGY, CACHE and MEM_TOPOLOGY only say
// they are there, as perf says without -I.
#pragma once

#include <string>

#include "format/session.h"
#include "format/stream_reader.h"

namespace sonde::analysis {

// `session` has observed the recording's metadata; `path` is the input as
// given (its modification time is perf's "captured on"). Ends with perf's
// "# ========\n#\n" in file mode; in pipe mode perf prints that line
// before the features (it prints each one as its record arrives).
std::string header_facts_text(const format::Session& session, const format::RecordReader& reader,
                              const std::string& path);

// --header-only: opens `path` and reads its metadata (in pipe mode, the
// records before the first event), then the text above.
std::string read_header_facts(const std::string& path);

}  // namespace sonde::analysis
