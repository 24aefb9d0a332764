// --switch-output[=signal|SIZE|TIME] and --switch-max-files N, as perf
// record has them: the recording goes to OUTPUT, and at each switch OUTPUT
// is renamed to OUTPUT.YYYYMMDDhhmmssCC (the time of the switch, perf's
// fetch_current_timestamp: seconds, then hundredths) and a new OUTPUT is
// started, a complete stream of its own. When the recording ends, the last
// OUTPUT is renamed the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

namespace sonde::record {

struct SwitchOutput {
  bool enabled = false;
  uint64_t size_bytes = 0;  // SIZE: switch once the file holds this many bytes (0 = not by size)
  uint64_t seconds = 0;     // TIME: switch when the file is this old (0 = not by time)
  size_t max_files = 0;     // --switch-max-files: keep the newest N files (0 = all)
};

// perf's grammar: "signal", or a number with one unit: B, K, M, G (bytes)
// or s, m, h, d (time). Throws a usage error naming `text` otherwise.
SwitchOutput parse_switch_output(std::string_view text);

// The files a rotating recording has finished: names them with perf's
// timestamp and removes the oldest beyond max_files.
class RotatedFiles {
 public:
  RotatedFiles(std::string output, size_t max_files) : output_(std::move(output)), max_files_(max_files) {}

  // Renames OUTPUT to OUTPUT.TIMESTAMP and removes the oldest rotated file
  // when there are more than max_files. Returns the new name. Throws a
  // runtime error when the rename fails.
  std::string retire_current();

  size_t retired() const { return retired_; }

 private:
  // perf's timestamp of now, moved one hundredth past the previous name when
  // the clock has not moved on: two switches in the same hundredth of a
  // second must not give one file the other's name.
  std::string next_timestamp();

  std::string output_;
  size_t max_files_;
  std::deque<std::string> kept_;
  int64_t last_centis_ = -1;
  size_t retired_ = 0;
};

}  // namespace sonde::record
