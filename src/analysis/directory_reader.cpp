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

// Advancing stream i past its current record fetches its next batch, which
// releases the records of the current one.
bool DirectoryReader::must_refill(uint32_t i) const {
  const Stream& s = *streams_[i];
  return !s.done && s.at + 1 >= s.batch.size();
}

// The next record to hand out; false at the end, or when that would first
// fetch a file's next batch and `may_refill` is false (records handed out
// since the last refill stay valid until then).
bool DirectoryReader::take(RecordView& out, bool may_refill) {
  if (!started_) start();
  if (handed_out_ >= 0) {
    const auto i = static_cast<uint32_t>(handed_out_);
    if (!may_refill && must_refill(i)) return false;
    handed_out_ = -1;
    advance(i);
  }
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
    handed_out_ = h.stream;  // its advance is due, whether it is handed out or left out
    if (!keep(h.stream, rec)) {
      if (!may_refill && must_refill(h.stream)) return false;
      handed_out_ = -1;
      advance(h.stream);
      continue;
    }
    if (rec.header.type >= kHeaderAttr) session_.observe(rec);
    if (rounds_ && h.time != 0 && ++timed_since_round_ >= kRoundRecords) {
      timed_since_round_ = 0;
      round_due_ = true;
    }
    if ((++delivered_ & 0xfff) == 0) update_position();
    out = rec;
    return true;
  }
  update_position();
  return false;
}

bool DirectoryReader::next(RecordView& out) { return take(out, true); }

bool DirectoryReader::next_batch(std::vector<RecordView>& out) {
  rounds_ = false;
  out.clear();
  RecordView rec;
  while (out.size() < kBatchRecords && take(rec, out.empty())) out.push_back(rec);
  return !out.empty();
}

RecordOrderer::Stats DirectoryReader::batch_stats() const {
  RecordOrderer::Stats st;
  for (const auto& s : streams_) st.records += s->orderer->stats().records;
  st.truncated_bytes = truncated_bytes_;
  st.unknown_records = unknown_records_;
  st.stop_error = error_;
  return st;
}

std::unique_ptr<RecordReader> open_input(const std::string& path) {
  if (is_directory(path)) return std::make_unique<DirectoryReader>(inspect_recording_dir(path));
  return open_recording(path);
}

}  // namespace sonde::analysis
