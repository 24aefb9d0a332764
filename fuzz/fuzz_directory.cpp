// Directories of streams (format/recording_dir.h, analysis/directory_reader.h):
// the input is a small container of up to 5 files, which become DIR/data and
// DIR/data.0..3; the directory is then read as a recording (layout checks,
// per-file ordering, the merge, attrs across files) and walked like
// fuzz_recording's inputs.
//   container: u8 count, then count u32 sizes (little-endian), then the
//   files' bytes one after the other (a size beyond the bytes left is cut).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/directory_reader.h"
#include "analysis/frames.h"
#include "analysis/recording_walker.h"
#include "util/error.h"

namespace {

// Made once per process, removed when it ends (the object's destructor: an
// atexit handler registered while the path was being made would run after the
// path is gone).
struct ScratchDir {
  std::string path;
  ScratchDir() {
    char tmpl[] = "/tmp/sonde-fuzz-dir-XXXXXX";
    if (!::mkdtemp(tmpl)) std::abort();
    path = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

const std::string& scratch_dir() {
  static const ScratchDir dir;
  return dir.path;
}

void write_file(const std::string& path, const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size) std::fwrite(data, 1, size, f);
  std::fclose(f);
}

void lay_out(const std::string& dir, const uint8_t* data, size_t size) {
  for (const auto& e : std::filesystem::directory_iterator(dir)) std::filesystem::remove(e.path());
  if (size == 0) return;
  const size_t count = std::min<size_t>(data[0], 5);
  size_t at = 1 + 4 * count;
  if (at > size) return;
  for (size_t i = 0; i < count; ++i) {
    uint32_t n;
    std::memcpy(&n, data + 1 + 4 * i, 4);
    const size_t take = std::min<size_t>(n, size - at);
    write_file(dir + (i == 0 ? "/data" : "/data." + std::to_string(i - 1)), data + at, take);
    at += take;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& dir = scratch_dir();
  lay_out(dir, data, size);
  try {
    auto reader = sonde::analysis::open_input(dir);
    sonde::analysis::RecordingWalker walker(*reader, sonde::analysis::dwarf_unwinding("/nonexistent/sonde-fuzz"));
    std::vector<sonde::analysis::Frame> frames;
    walker.run([&](const sonde::format::Sample& s) { sonde::analysis::sample_frames(s, walker.space(), frames); });
  } catch (const sonde::Error&) {
    // A one-line error is the right outcome for most inputs.
  }
  return 0;
}
