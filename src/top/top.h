// `sonde top`: a live view of the hottest functions. The recorder and the
// reading pipeline run in this process (live_session.h); each refresh shows
// the samples of the last interval as the report's table (top_view.h), on a
// terminal (terminal.h, keys.h) or, in the batch mode, as plain text on
// standard output.
#pragma once

#include <cstdint>

#include "record/recorder.h"
#include "symbol/symbolizer.h"
#include "top/top_view.h"

namespace sonde::top {

struct TopOptions {
  record::RecordOptions record;  // events, -F, -g, -p; the output is set by the session
  SymbolizerOptions symbols;
  ViewSettings view;             // its delay_seconds is the refresh interval
  uint64_t iterations = 0;       // refreshes before exiting; 0: until q or a signal
  bool stdio = false;            // batch mode; also when standard input or output is not a terminal
};

// Runs until `q`, Ctrl-C, SIGINT (exit status 0), SIGTERM/SIGHUP/SIGQUIT
// (128 + the signal), --iterations refreshes (0), or, in the batch mode,
// the end of the recording (its processes exited: 0). Throws sonde::Error
// for what the recorder refuses (before the terminal is touched) or fails.
int run_top(TopOptions options);

}  // namespace sonde::top
