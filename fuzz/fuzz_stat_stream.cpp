// stat streams (stat/stat_stream.h): THREAD_MAP, CPU_MAP in its three forms,
// STAT_CONFIG, STAT and STAT_ROUND records read back and printed as `sonde
// stat report` does, in each output style and with each aggregation.
#include <cstdio>

#include "fuzz_input.h"
#include "stat/stat_session.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using sonde::fuzz::InputFile;
  static std::FILE* sink = std::fopen("/dev/null", "w");
  InputFile in(data, size, InputFile::kRegular);
  const sonde::stat::OutputStyle styles[] = {sonde::stat::OutputStyle::Std, sonde::stat::OutputStyle::Csv,
                                             sonde::stat::OutputStyle::Json};
  const sonde::stat::AggrMode thread = sonde::stat::AggrMode::Thread;
  for (auto style : styles) {
    sonde::stat::PrintConfig p;
    p.style = style;
    try {
      sonde::stat::report_stat(in.path(), p, style == sonde::stat::OutputStyle::Json ? &thread : nullptr, sink);
    } catch (const sonde::Error&) {
      // A one-line error is the right outcome for most inputs.
    }
  }
  return 0;
}
