#include "analysis/directory_reader.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "format/records.h"
#include "util/error.h"

namespace sonde::analysis {

using namespace sonde::format;

namespace {

bool untimed(uint64_t t) { return t == 0 || t == UINT64_MAX; }

}  // namespace

DirectoryReader::DirectoryReader(const RecordingDir& dir) {
  file_mode_ = dir.layout == DirLayout::kPerfThreads;
  time_ordered_ = true;
  round_.type = kFinishedRound;
  round_.size = sizeof(RecordHeader);
  auto readers = open_dir_streams(dir);
  for (size_t i = 0; i < readers.size(); ++i) {
    auto s = std::make_unique<Stream>();
    s->name = dir.files[i];
    s->reader = std::move(readers[i]);
    input_size_ += s->reader->input_size();
    streams_.push_back(std::move(s));
  }
  file_header_ = streams_.front()->reader->file_header();
  for (auto& s : streams_) {
    Stream* sp = s.get();
    s->orderer = std::make_unique<RecordOrderer>(*s->reader, [sp](uint64_t pos, uint64_t) {
      sp->position.store(pos, std::memory_order_relaxed);
    });
  }
  heap_.reserve(streams_.size());
}

// The orderers' threads end before their readers go.
DirectoryReader::~DirectoryReader() {
  for (auto& s : streams_) s->orderer.reset();
}

bool DirectoryReader::refill(Stream& s) {
  while (!s.done && s.at >= s.batch.size()) {
    s.at = 0;
    if (!s.orderer->next_batch(s.batch)) finish(s);
  }
  return !s.done;
}

void DirectoryReader::finish(Stream& s) {
  s.done = true;
  s.batch.clear();
  const auto& st = s.orderer->stats();
  truncated_bytes_ += st.truncated_bytes;
  unknown_records_ += st.unknown_records;
  compressed_records_ += s.reader->compressed_records();
  if (!st.stop_error.empty() && error_.empty()) error_ = s.name + ": " + st.stop_error;
}

void DirectoryReader::push_head(uint32_t i) {
  Stream& s = *streams_[i];
  if (!refill(s)) return;
  const RecordView& rec = s.batch[s.at];
  const uint64_t t = rec.header.type >= kHeaderAttr ? 0 : delivery_time(session_, rec);
  heap_.push_back({untimed(t) ? 0 : t, i});
  std::push_heap(heap_.begin(), heap_.end(), std::greater<Head>{});
}

void DirectoryReader::start() {
  started_ = true;
  for (uint32_t i = 0; i < streams_.size(); ++i) push_head(i);
}

void DirectoryReader::advance(uint32_t i) {
  ++streams_[i]->at;
  push_head(i);
}

// Later files repeat the first one's metadata: one attr per id across files
// (a different attr under a known id is an error), everything else once.
bool DirectoryReader::keep(uint32_t i, const RecordView& rec) {
  if (rec.header.type == kHeaderAttr) {
    std::string why;
    auto a = HeaderAttrView::parse(rec.bytes, &why);
    if (!a) throw_runtime("{}: bad HEADER_ATTR at offset {:#x}: {}", streams_[i]->name, rec.offset, why);
    bool all_known = a->id_count() > 0;
    for (size_t k = 0; k < a->id_count(); ++k) {
      auto it = attr_of_id_.find(a->id(k));
      if (it == attr_of_id_.end()) {
        all_known = false;
        continue;
      }
      if (std::memcmp(&it->second, &a->attr, sizeof a->attr) != 0)
        throw_runtime("{}: the attr of id {} differs from the one an earlier file of the directory gave it",
                      streams_[i]->name, a->id(k));
    }
    if (i > 0 && all_known) return false;
    for (size_t k = 0; k < a->id_count(); ++k) attr_of_id_.emplace(a->id(k), a->attr);
    return true;
  }
  return i == 0 || rec.header.type < kHeaderAttr || rec.header.type == kFinishedRound;
}

void DirectoryReader::update_position() {
  uint64_t pos = 0;
  for (auto& s : streams_) pos += s->position.load(std::memory_order_relaxed);
  position_ = pos;
}

bool DirectoryReader::next(RecordView& out) {
  if (!started_) start();
  if (handed_out_ >= 0) advance(static_cast<uint32_t>(std::exchange(handed_out_, -1)));
  if (round_due_) {
    round_due_ = false;
    out = {round_, {reinterpret_cast<const uint8_t*>(&round_), sizeof round_}, {}, 0};
    return true;
  }
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<Head>{});
    const Head h = heap_.back();
    heap_.pop_back();
    const RecordView& rec = streams_[h.stream]->batch[streams_[h.stream]->at];
    if (!keep(h.stream, rec)) {
      advance(h.stream);
      continue;
    }
    if (rec.header.type >= kHeaderAttr) session_.observe(rec);
    if (h.time != 0 && ++timed_since_round_ >= kRoundRecords) {
      timed_since_round_ = 0;
      round_due_ = true;
    }
    if ((++delivered_ & 0xfff) == 0) update_position();
    handed_out_ = h.stream;
    out = rec;
    return true;
  }
  update_position();
  return false;
}

std::unique_ptr<RecordReader> open_input(const std::string& path) {
  if (is_directory(path)) return std::make_unique<DirectoryReader>(inspect_recording_dir(path));
  return open_recording(path);
}

}  // namespace sonde::analysis
