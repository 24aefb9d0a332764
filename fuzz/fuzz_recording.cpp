// Recordings: pipe and file mode (both may hold zstd COMPRESSED records), read
// from a regular file and, for pipe mode, also from a pipe; the walk builds
// the session and address space and resolves every sample's frames, and
// `script -D` prints every record's text (KSYMBOL, BPF_EVENT, ... included);
// READ records are summed per thread as `report -T` does (stat/thread_counts.h).
#include <vector>

#include <cstdio>

#include "format/stream_reader.h"
#include "script/raw_dump.h"
#include "fuzz_input.h"
#include "analysis/frames.h"
#include "analysis/recording_walker.h"
#include "stat/thread_counts.h"
#include "util/error.h"

namespace {

void walk(const std::string& path) {
  try {
    auto reader = sonde::format::open_recording(path);
    sonde::analysis::RecordingWalker walker(*reader, sonde::analysis::dwarf_unwinding("/nonexistent/sonde-fuzz"));
    std::vector<sonde::analysis::Frame> frames;
    sonde::stat::ThreadCounts counts;
    walker.run([&](const sonde::format::Sample& s) { sonde::analysis::sample_frames(s, walker.space(), frames); },
               [&](const sonde::format::RecordView& r) { counts.add(r, walker.session()); });
    (void)sonde::stat::format_thread_counts(counts, false);
    (void)sonde::stat::format_thread_counts(counts, true);
  } catch (const sonde::Error&) {
    // A one-line error is the right outcome for most inputs.
  }
  try {
    auto reader = sonde::format::open_recording(path);
    static std::FILE* sink = std::fopen("/dev/null", "w");
    sonde::script::dump_raw_records(*reader, path, sink);
  } catch (const sonde::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using sonde::fuzz::InputFile;
  walk(InputFile(data, size, InputFile::kRegular).path());
  const bool pipe_mode = size >= 16 && data[8] == 16;
  if (pipe_mode) {
    InputFile in(data, size, InputFile::kPipe);
    walk(in.path());
  }
  return 0;
}
