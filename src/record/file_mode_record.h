// A recording written in perf's file mode (as `perf trace record` and
// `perf sched record` write): perf trace -i and perf sched find their
// tracepoint events before reading any record, which a pipe-mode stream
// does not allow. Recorded as a stream beside the output, then rewritten.
#pragma once

#include "record/recorder.h"

namespace sonde::record {

// As record(), but `options.output` ("-" stays a stream) ends in file mode.
RecordSummary record_file_mode(RecordOptions options);

}  // namespace sonde::record
