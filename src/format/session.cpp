#include "format/session.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "format/attr_sizes.h"
#include "format/event_names.h"
#include "format/features.h"
#include "format/records.h"
#include "util/byte_reader.h"
#include "util/error.h"

namespace sonde::format {

bool Session::observe(const RecordView& rec) {
  switch (rec.header.type) {
    case kHeaderAttr:
      add_attr(rec);
      return true;
    case kHeaderFeature: {
      auto f = FeatureView::parse(rec.bytes);
      if (!f) return true;
      features_[f->feat_id].assign(f->payload.begin(), f->payload.end());
      if (f->feat_id == kFeatEventDesc) {
        if (auto descs = decode_event_desc(f->payload)) {
          for (size_t i = 0; i < descs->size() && i < events_.size(); ++i)
            if (!(*descs)[i].name.empty()) name_event(events_[i], (*descs)[i].name);
        }
      }
      return true;
    }
    case kEventUpdate: {
      auto u = EventUpdateView::parse(rec.bytes);
      auto name = u ? u->name() : std::nullopt;
      if (name) {
        if (auto* ev = event_for_id(u->id))
          name_event(events_[ev->index], std::string(*name));
        else
          pending_names_[u->id] = std::string(*name);
      }
      return true;
    }
    case kHeaderTracingData:
      tracing_data_.assign(rec.trailing.begin(), rec.trailing.end());
      return true;
    case kHeaderBuildId:
    case kHeaderEventType:
    case kIdIndex:
    case kThreadMap:
    case kCpuMap:
    case kTimeConv:
    case kFinishedInit:
    case kStatConfig:
      return true;
    default:
      return false;
  }
}

void Session::name_event(EventInfo& ev, std::string name) {
  ev.name = std::move(name);
  ev.kind = classify_event(ev.attr, ev.name);
}

void Session::add_attr(const RecordView& rec) {
  // Without a usable attr no sample can be decoded, so a bad one ends the
  // reading with one line.
  std::string why;
  auto a = HeaderAttrView::parse(rec.bytes, &why);
  if (!a) throw_runtime("bad HEADER_ATTR at offset {:#x}: {}", rec.offset, why);
  EventInfo ev;
  ev.attr = a->attr;
  for (size_t i = 0; i < a->id_count(); ++i) ev.ids.push_back(a->id(i));
  ev.index = events_.size();
  name_event(ev, default_event_name(ev.attr));
  for (uint64_t id : ev.ids) {
    id_to_event_[id] = ev.index;
    auto it = pending_names_.find(id);
    if (it != pending_names_.end()) name_event(ev, it->second);
  }
  events_.push_back(std::move(ev));
  if (events_.size() == 1) recompute_layout();
}

void Session::recompute_layout() {
  sample_type_ = events_.front().attr.sample_type;
  const uint64_t st = sample_type_;
  // Position of the id inside a sample (perf's evsel id_pos).
  const int id_at = sample_field_offset(st, (st & PERF_SAMPLE_IDENTIFIER) ? PERF_SAMPLE_IDENTIFIER : PERF_SAMPLE_ID);
  sample_id_pos_ = id_at < 0 ? -1 : id_at / 8;
  // The trailer: {pid,tid} TIME ID STREAM_ID {cpu,res} IDENTIFIER.
  size_t n = 0;
  for (uint64_t bit : {PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
                       PERF_SAMPLE_IDENTIFIER})
    if (st & bit) ++n;
  id_hdr_size_ = events_.front().attr.sample_id_all ? n * 8 : 0;
  if (st & PERF_SAMPLE_IDENTIFIER) {
    trailer_id_pos_ = 1;
  } else if (st & PERF_SAMPLE_ID) {
    int pos = 1;
    if (st & PERF_SAMPLE_CPU) ++pos;
    if (st & PERF_SAMPLE_STREAM_ID) ++pos;
    trailer_id_pos_ = pos;
  } else {
    trailer_id_pos_ = -1;
  }
}

const EventInfo* Session::event_for_id(uint64_t id) const {
  auto it = id_to_event_.find(id);
  return it == id_to_event_.end() ? nullptr : &events_[it->second];
}

namespace {

bool read_regs(ByteReader& r, uint64_t mask, uint64_t& abi, std::span<const uint8_t>& regs) {
  if (!r.read(abi)) return false;
  if (abi == 0) return true;
  return r.bytes(static_cast<size_t>(std::popcount(mask)) * 8, regs);
}

bool fail(std::string* why, const char* what) {
  if (why) *why = what;
  return false;
}

}  // namespace

int sample_field_offset(uint64_t sample_type, uint64_t field) {
  // The fixed fields, one u64 each when present, in the kernel's order.
  static constexpr uint64_t kOrder[] = {PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP,   PERF_SAMPLE_TID,
                                        PERF_SAMPLE_TIME,       PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
                                        PERF_SAMPLE_STREAM_ID,  PERF_SAMPLE_CPU,  PERF_SAMPLE_PERIOD};
  if (!(sample_type & field)) return -1;
  int off = 0;
  for (uint64_t f : kOrder) {
    if (f == field) return off;
    if (sample_type & f) off += 8;
  }
  return -1;
}

const EventInfo* Session::sample_event(std::span<const uint8_t> body, std::string* why) const {
  const char* problem = nullptr;
  const EventInfo* ev = nullptr;
  const size_t off = static_cast<size_t>(std::max(sample_id_pos_, 0)) * 8;
  if (events_.empty())
    problem = "sample before any event attribute";
  else if (events_.size() == 1)
    ev = &events_.front();
  else if (sample_id_pos_ < 0)
    problem = "several events but samples carry no id";
  else if (body.size() < off + 8)
    problem = "sample too short for its id";
  else if (!(ev = event_for_id(load<uint64_t>(body.data() + off))))
    problem = "sample names an unknown event id";
  if (problem) fail(why, problem);
  return ev;
}

bool Session::decode_sample(const RecordView& rec, Sample& s, std::string* why) const {
  auto body = rec.bytes.subspan(sizeof(RecordHeader));
  const EventInfo* ev = sample_event(body, why);
  if (!ev) return false;
  const bool ok = decode_sample_body(ev->attr, body, s, why);
  s.event = ev;
  s.misc = rec.header.misc;
  return ok;
}

namespace {

// The fixed u64 fields, in the kernel's order (sample_field_offset's too).
bool read_fixed_fields(uint64_t st, ByteReader& r, Sample& s) {
  bool ok = true;
  if (st & PERF_SAMPLE_IDENTIFIER) ok &= r.read(s.id);
  if (st & PERF_SAMPLE_IP) ok &= r.read(s.ip);
  if (st & PERF_SAMPLE_TID) ok &= r.read(s.pid) && r.read(s.tid);
  if (st & PERF_SAMPLE_TIME) ok &= r.read(s.time);
  if (st & PERF_SAMPLE_ADDR) ok &= r.read(s.addr);
  if (st & PERF_SAMPLE_ID) ok &= r.read(s.id);
  if (st & PERF_SAMPLE_STREAM_ID) ok &= r.read(s.stream_id);
  if (st & PERF_SAMPLE_CPU) {
    uint32_t res;
    ok &= r.read(s.cpu) && r.read(res);
  }
  if (st & PERF_SAMPLE_PERIOD) ok &= r.read(s.period);
  return ok;
}

}  // namespace

bool decode_sample_fixed(uint64_t sample_type, std::span<const uint8_t> body, Sample& s) {
  s = Sample{};
  ByteReader r(body);
  return read_fixed_fields(sample_type, r, s);
}

bool decode_sample_body(const perf_event_attr& a, std::span<const uint8_t> body, Sample& s, std::string* why) {
  s = Sample{};
  const uint64_t st = a.sample_type;
  ByteReader r(body);
  if (!read_fixed_fields(st, r, s)) return fail(why, "sample shorter than its fixed fields");
  if (st & PERF_SAMPLE_READ) {
    const uint64_t rf = a.read_format;
    size_t per_value = 1 + ((rf & PERF_FORMAT_ID) ? 1 : 0) + ((rf & (1u << 4)) ? 1 : 0);
    size_t head = ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 1 : 0) + ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 1 : 0);
    if (rf & PERF_FORMAT_GROUP) {
      uint64_t nr;
      if (!r.read(nr) || nr > r.remaining() / 8 || !r.skip(8 * head) || nr > r.remaining() / (8 * per_value) ||
          !r.skip(8 * per_value * nr))
        return fail(why, "sample read_format block overruns the record");
    } else if (!r.skip(8 * (head + per_value))) {
      return fail(why, "sample read_format block overruns the record");
    }
  }
  if (st & PERF_SAMPLE_CALLCHAIN) {
    uint64_t nr;
    if (!r.read(nr) || nr > r.remaining() / 8 || !r.bytes(nr * 8, s.callchain))
      return fail(why, "sample callchain overruns the record");
  }
  if (st & PERF_SAMPLE_RAW) {
    uint32_t size;
    if (!r.read(size) || !r.bytes(size, s.raw)) return fail(why, "sample raw data overruns the record");
  }
  if (st & PERF_SAMPLE_BRANCH_STACK) {
    uint64_t nr;
    if (!r.read(nr)) return fail(why, "sample branch stack overruns the record");
    if (a.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) r.skip(8);
    if (nr > r.remaining() / 24 || !r.skip(nr * 24)) return fail(why, "sample branch stack overruns the record");
  }
  if (st & PERF_SAMPLE_REGS_USER) {
    if (!read_regs(r, a.sample_regs_user, s.regs_abi, s.regs_user)) return fail(why, "sample user registers overrun the record");
  }
  if (st & PERF_SAMPLE_STACK_USER) {
    s.stack_user_at = static_cast<uint32_t>(r.pos() - body.data());
    uint64_t size;
    if (!r.read(size)) return fail(why, "sample user stack overruns the record");
    if (size) {
      if (size > r.remaining() || !r.bytes(size, s.stack_user) || !r.read(s.stack_dyn_size))
        return fail(why, "sample user stack overruns the record");
      if (s.stack_dyn_size < s.stack_user.size()) s.stack_user = s.stack_user.first(s.stack_dyn_size);
    }
  }
  // Later fields (weight, data_src, ...) are not used by sonde; a sample that
  // is long enough for what sonde reads is accepted.
  return true;
}

uint64_t Session::sample_time(const RecordView& rec) const {
  auto body = rec.bytes.subspan(sizeof(RecordHeader));
  const EventInfo* ev = sample_event(body, nullptr);
  if (!ev) return 0;
  const int off = sample_field_offset(ev->attr.sample_type, PERF_SAMPLE_TIME);
  if (off < 0 || body.size() < static_cast<size_t>(off) + 8) return 0;
  return load<uint64_t>(body.data() + off);
}

bool Session::decode_sample_id(const RecordView& rec, SampleId& out) const {
  out = SampleId{};
  if (id_hdr_size_ == 0 || rec.bytes.size() < sizeof(RecordHeader) + id_hdr_size_) return false;
  ByteReader r(rec.bytes.data() + rec.bytes.size() - id_hdr_size_, id_hdr_size_);
  const uint64_t st = sample_type_;
  if (st & PERF_SAMPLE_TID) r.read(out.pid), r.read(out.tid);
  if (st & PERF_SAMPLE_TIME) r.read(out.time);
  if (st & PERF_SAMPLE_ID) r.read(out.id);
  if (st & PERF_SAMPLE_STREAM_ID) r.read(out.stream_id);
  if (st & PERF_SAMPLE_CPU) {
    uint32_t res;
    r.read(out.cpu), r.read(res);
  }
  if (st & PERF_SAMPLE_IDENTIFIER) r.read(out.id);
  return true;
}

std::span<const uint8_t> Session::feature(FeatureId id) const {
  auto it = features_.find(id);
  if (it == features_.end()) return {};
  return it->second;
}

std::optional<std::string> Session::feature_string(FeatureId id) const {
  auto f = feature(id);
  if (f.empty()) return std::nullopt;
  return decode_string(f);
}

std::optional<std::vector<std::string>> Session::feature_string_list(FeatureId id) const {
  auto f = feature(id);
  if (f.empty()) return std::nullopt;
  return decode_string_list(f);
}

}  // namespace sonde::format
