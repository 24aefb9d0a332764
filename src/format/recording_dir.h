// A recording stored as a directory of streams (docs/format.md, "Directory
// recordings"). Two layouts:
//   sonde's:        DIR/data and DIR/data.N, each a whole pipe-mode stream;
//   perf --threads: DIR/data a file-mode perf.data with HEADER_DIR_FORMAT,
//                   DIR/data.N raw records that use data's attrs.
// This file finds which one a directory holds and opens each of its files as
// a self-describing record sequence; analysis/directory_reader.h merges them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "format/stream_reader.h"

namespace sonde::format {

enum class DirLayout { kSonde, kPerfThreads };

struct RecordingDir {
  std::string path;
  DirLayout layout = DirLayout::kSonde;
  std::vector<std::string> files;  // DIR/data first, then DIR/data.N by N
};

bool is_directory(const std::string& path);

// Lists and checks DIR: throws sonde::Error (runtime) with one line for an
// empty directory, one without `data`, or files of both layouts.
RecordingDir inspect_recording_dir(const std::string& path);

// One reader per file of `dir`, in its order. perf's headerless data.N come
// after copies of data's HEADER_ATTR records, presented as file mode does
// with header sections (file_mode() is true, so `script -D` skips them),
// and, with `add_rounds`, with a FINISHED_ROUND after every 32768 records
// (perf writes none there: the rounds bound what ordering a file holds).
std::vector<std::unique_ptr<RecordReader>> open_dir_streams(const RecordingDir& dir, bool add_rounds = true);

}  // namespace sonde::format
