#include "format/recording_dir.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "format/perf_abi.h"
#include "util/byte_reader.h"
#include "util/error.h"
#include "util/fd.h"

namespace sonde::format {

namespace {

// What a file's first bytes say.
enum class Start { kEmpty, kPipe, kFile, kRaw };

Start file_start(const std::string& path) {
  UniqueFd fd = open_regular_file(path.c_str());
  if (!fd) throw_runtime("cannot read {}: {}", path, errno_text(errno));
  uint8_t head[sizeof(PipeHeader)];
  const ssize_t n = ::pread(fd.get(), head, sizeof head, 0);
  if (n < 0) throw_runtime("cannot read {}: {}", path, errno_text(errno));
  if (n == 0) return Start::kEmpty;
  if (static_cast<size_t>(n) < sizeof head) return Start::kRaw;
  const auto h = load<PipeHeader>(head);
  if (h.magic != kMagic) return Start::kRaw;
  return h.size == kPipeHeaderSize ? Start::kPipe : Start::kFile;
}

// data.N's N, or -1 for any other name.
int64_t stream_number(const std::string& name) {
  if (name.size() < 6 || name.compare(0, 5, "data.") != 0) return -1;
  uint64_t n = 0;
  for (char c : name.substr(5)) {
    if (c < '0' || c > '9' || n > (1u << 30)) return -1;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return static_cast<int64_t>(n);
}

bool has_dir_format(const std::string& data_path) {
  UniqueFd fd = open_regular_file(data_path.c_str());
  FileHeader h{};
  if (!fd || ::pread(fd.get(), &h, sizeof h, 0) != static_cast<ssize_t>(sizeof h)) return false;
  return (h.features[kFeatDirFormat / 64] >> (kFeatDirFormat % 64)) & 1;
}

// perf's data.N: data's HEADER_ATTR records first, then the file's own, with
// a FINISHED_ROUND after every kRecordsPerRound of them. perf writes no
// rounds there (its reader queues a whole file, up to a memory limit past
// which it flushes half); each file is what one thread drained from its
// rings, pass after pass, so a record is late by less than a pass, and a
// pass of a ring holds at most a ring's worth (512 KiB, ~10K records).
// With rounds of 32768 records (perf's rule: a round releases what is older
// than the previous round's newest) a file's window stays bounded.
class PrefixedReader : public RecordReader {
 public:
  static constexpr uint64_t kRecordsPerRound = 32768;

  PrefixedReader(std::vector<uint8_t> prefix, std::unique_ptr<RecordReader> inner, bool rounds)
      : prefix_(std::move(prefix)), rounds_(rounds), inner_(std::move(inner)) {
    file_mode_ = true;
    input_size_ = inner_->input_size();
    round_.type = kFinishedRound;
    round_.size = sizeof(RecordHeader);
  }

  bool next(RecordView& out) override {
    if (at_ + sizeof(RecordHeader) <= prefix_.size()) {
      const auto h = load<RecordHeader>(prefix_.data() + at_);
      out = {h, {prefix_.data() + at_, h.size}, {}, 0};
      at_ += h.size;
      return true;
    }
    if (rounds_ && ++records_ % (kRecordsPerRound + 1) == 0) {
      out = {round_, {reinterpret_cast<const uint8_t*>(&round_), sizeof round_}, {}, inner_->position()};
      return true;
    }
    const bool more = inner_->next(out);
    truncated_bytes_ = inner_->truncated_bytes();
    error_ = inner_->error();
    position_ = inner_->position();
    unknown_records_ = inner_->unknown_records();
    compressed_records_ = inner_->compressed_records();
    return more;
  }

 private:
  std::vector<uint8_t> prefix_;  // whole records, checked by the reader that made them
  size_t at_ = 0;
  bool rounds_;
  uint64_t records_ = 0;
  RecordHeader round_{};
  std::unique_ptr<RecordReader> inner_;
};

std::vector<uint8_t> attr_records_of(const std::string& data_path) {
  auto reader = open_recording(data_path);
  std::vector<uint8_t> out;
  RecordView rec;
  while (reader->next(rec) && rec.header.type == kHeaderAttr) out.insert(out.end(), rec.bytes.begin(), rec.bytes.end());
  return out;
}

}  // namespace

bool is_directory(const std::string& path) {
  struct stat st {};
  return path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

RecordingDir inspect_recording_dir(const std::string& path) {
  namespace fs = std::filesystem;
  RecordingDir dir{path, DirLayout::kSonde, {}};
  std::vector<std::pair<int64_t, std::string>> streams;
  bool any = false, have_data = false;
  std::error_code ec;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    any = true;
    const std::string name = it->path().filename().string();
    if (name == "data") have_data = true;
    else if (int64_t n = stream_number(name); n >= 0) streams.emplace_back(n, it->path().string());
  }
  if (ec) throw_runtime("cannot list the directory {}: {}", path, ec.message());
  if (!any) throw_runtime("{} is an empty directory: no recording to read", path);
  if (!have_data) throw_runtime("{} is a directory without a data file: not a recording directory", path);
  std::sort(streams.begin(), streams.end());
  const std::string data = (fs::path(path) / "data").string();
  const Start data_start = file_start(data);
  if (data_start == Start::kEmpty) throw_runtime("{} is empty: no recording to read", data);
  if (data_start == Start::kRaw) throw_runtime("{} is not a perf.data recording (bad magic)", data);
  dir.layout = data_start == Start::kFile ? DirLayout::kPerfThreads : DirLayout::kSonde;
  if (dir.layout == DirLayout::kPerfThreads && !streams.empty() && !has_dir_format(data))
    throw_runtime("{} has data.N files but its data is a perf.data file without HEADER_DIR_FORMAT", path);
  dir.files.push_back(data);
  for (auto& [n, file] : streams) {
    const Start s = file_start(file);
    if (dir.layout == DirLayout::kSonde && (s == Start::kRaw || s == Start::kFile))
      throw_runtime("{} mixes layouts: data is a pipe-mode stream but {} is not", path, file);
    if (dir.layout == DirLayout::kPerfThreads && (s == Start::kPipe || s == Start::kFile))
      throw_runtime("{} mixes layouts: data is perf --threads' header but {} has a perf.data header", path, file);
    dir.files.push_back(std::move(file));
  }
  return dir;
}

std::vector<std::unique_ptr<RecordReader>> open_dir_streams(const RecordingDir& dir, bool add_rounds) {
  std::vector<std::unique_ptr<RecordReader>> out;
  out.push_back(open_recording(dir.files.front()));
  std::vector<uint8_t> attrs;
  if (dir.layout == DirLayout::kPerfThreads && dir.files.size() > 1) attrs = attr_records_of(dir.files.front());
  for (size_t i = 1; i < dir.files.size(); ++i) {
    if (dir.layout == DirLayout::kPerfThreads)
      out.push_back(std::make_unique<PrefixedReader>(attrs, open_raw_records(dir.files[i]), add_rounds));
    else if (file_start(dir.files[i]) == Start::kEmpty)
      out.push_back(std::make_unique<PrefixedReader>(std::vector<uint8_t>{}, open_raw_records(dir.files[i]), false));
    else
      out.push_back(open_recording(dir.files[i]));
  }
  return out;
}

}  // namespace sonde::format
