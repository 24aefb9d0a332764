#include "script/raw_dump.h"

#include <fmt/format.h>

#include <cctype>
#include <cstring>
#include <vector>

#include "analysis/reading_outcome.h"
#include "format/perf_abi.h"
#include "format/sample.h"
#include "format/recording_dir.h"
#include "format/records.h"
#include "format/session.h"
#include "script/record_text.h"
#include "util/error.h"

namespace sonde::script {

using namespace sonde::format;

namespace {

// C's "%#lx": no 0x before a zero.

// ".  0000:  50 00 ... 00  P.....T........." sixteen bytes a line.
void append_hex(std::span<const uint8_t> bytes, fmt::memory_buffer& out) {
  auto it = fmt::appender(out);
  fmt::format_to(it, ".\n. ... raw event: size {} bytes\n", bytes.size());
  for (size_t line = 0; line < bytes.size(); line += 16) {
    const size_t n = std::min<size_t>(16, bytes.size() - line);
    fmt::format_to(it, ".  {:04x}: ", line);
    for (size_t i = 0; i < n; ++i) fmt::format_to(it, " {:02x}", bytes[line + i]);
    for (size_t i = n; i < 16; ++i) fmt::format_to(it, "   ");
    fmt::format_to(it, "  ");
    for (size_t i = 0; i < n; ++i) {
      const unsigned char c = bytes[line + i];
      out.push_back(c < 128 && std::isprint(c) ? static_cast<char>(c) : '.');
    }
    for (size_t i = n; i < 16; ++i) out.push_back(' ');
    out.push_back('\n');
  }
  out.push_back('\n');
}

// perf's "CPU TIME " before a record's offset: the sample's or the
// record's sample_id; "-1 -1 " while no event says records carry one.
void append_timestamp(const Session& session, const RecordView& rec, const Sample* sample, fmt::memory_buffer& out) {
  const EventInfo* first = session.events().empty() ? nullptr : &session.events().front();
  if (!first || (!sample && !first->attr.sample_id_all)) return fmt::format_to(fmt::appender(out), "-1 -1 "), void();
  SampleId id;
  if (sample) id.cpu = sample->cpu, id.time = sample->time;
  else if (rec.header.type < 64) session.decode_sample_id(rec, id);  // perf's own records carry none
  const uint64_t type = sample ? sample->event->attr.sample_type : first->attr.sample_type;
  if (type & PERF_SAMPLE_CPU) fmt::format_to(fmt::appender(out), "{} ", id.cpu);
  if (type & PERF_SAMPLE_TIME) fmt::format_to(fmt::appender(out), "{} ", id.time);
}

void append_sample(const RecordView& rec, const Sample& s, fmt::memory_buffer& out) {
  auto it = fmt::appender(out);
  fmt::format_to(it, "PERF_RECORD_SAMPLE(IP, {:#x}): {}/{}: {} period: {} addr: {}\n", rec.header.misc,
                 int32_t(s.pid), int32_t(s.tid), hex_or_zero(s.ip), s.period, hex_or_zero(s.addr));
  if (s.event->attr.sample_type & PERF_SAMPLE_CALLCHAIN) {
    fmt::format_to(it, "... FP chain: nr:{}\n", s.callchain_size());
    for (size_t i = 0; i < s.callchain_size(); ++i) fmt::format_to(it, "..... {:2}: {:016x}\n", i, s.callchain_at(i));
  }
  if (s.event->attr.sample_type & PERF_SAMPLE_STACK_USER)
    fmt::format_to(it, "... ustack: size: {}, offset: {:#x}\n", s.stack_dyn_size, 0);
}

// perf's records about the recording itself (file mode writes them).
void append_id_index(const IdIndexView& v, fmt::memory_buffer& out) {
  fmt::format_to(fmt::appender(out), "PERF_RECORD_ID_INDEX nr: {}\n", v.nr);
  for (size_t i = 0; i < v.count(); ++i) {
    const auto e = v.entry(i);
    fmt::format_to(fmt::appender(out), " ... id: {}  idx: {}  cpu: {}  tid: {}\n", e.id, e.idx, int64_t(e.cpu),
                   int64_t(e.tid));
  }
}

void append_thread_map(const ThreadMapView& v, fmt::memory_buffer& out) {
  const size_t nr = v.count();
  fmt::format_to(fmt::appender(out), "PERF_RECORD_THREAD_MAP nr: {} thread{}: ", nr, nr > 1 ? "s" : "");
  for (size_t i = 0; i < nr; ++i) fmt::format_to(fmt::appender(out), "{}{}", i ? ", " : "", int64_t(v.entry(i).pid));
  out.push_back('\n');
}

// A CPU_MAP's list as ranges ("0-1,4").
void append_cpu_map(const CpuMapView& v, fmt::memory_buffer& out) {
  const std::vector<int> cpus = v.cpus();
  fmt::format_to(fmt::appender(out), "PERF_RECORD_CPU_MAP: ");
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    fmt::format_to(fmt::appender(out), "{}{}", i ? "," : "", cpus[i]);
    if (j > i) fmt::format_to(fmt::appender(out), "-{}", cpus[j]);
    i = j + 1;
  }
  out.push_back('\n');
}

void append_decoded(const RecordView& rec, fmt::memory_buffer& out) {
  auto it = fmt::appender(out);
  switch (rec.header.type) {
    case kIdIndex:
      if (auto v = IdIndexView::parse(rec.bytes)) return append_id_index(*v, out);
      break;
    case kThreadMap:
      if (auto v = ThreadMapView::parse(rec.bytes)) return append_thread_map(*v, out);
      break;
    case kCpuMap:
      if (auto v = CpuMapView::parse(rec.bytes)) return append_cpu_map(*v, out);
      break;
    case kLost:
      if (auto l = LostView::parse(rec.bytes))
        return fmt::format_to(it, "PERF_RECORD_LOST: id:{}: lost:{}\n", l->id, l->lost), void();
      break;
    case kEventUpdate:
      if (auto u = EventUpdateView::parse(rec.bytes); u && u->name_text())
        return fmt::format_to(it, "PERF_RECORD_EVENT_UPDATE\n... id:    {}\n... name:  {}\n", u->id, *u->name_text()),
               void();
      break;
    case kFinishedInit:
      return fmt::format_to(it, "PERF_RECORD_FINISHED_INIT: unhandled!\n"), void();
    default:
      break;
  }
  append_record_text(rec, out);
}

}  // namespace

RawDumpResult dump_raw_records(RecordReader& reader, const std::string& label, std::FILE* out) {
  Session session;
  RecordView rec;
  Sample sample;
  RawDumpResult result;
  fmt::memory_buffer buf;
  auto write = [&] {
    if (std::fwrite(buf.data(), 1, buf.size(), out) != buf.size()) throw_runtime("cannot write the output: {}", errno_text(errno));
    buf.clear();
  };
  while (reader.next(rec)) {
    const uint32_t type = rec.header.type;
    // In file mode the reader makes these from the header's sections: they
    // are not records of the file (perf dumps only the data section).
    const bool synthesized = reader.file_mode() && (type == kHeaderAttr || type == kHeaderFeature ||
                                                    type == kHeaderTracingData || type == kHeaderBuildId);
    const bool have_sample = type == kSample && session.decode_sample(rec, sample);
    if (synthesized) {
      session.observe(rec);
      continue;
    }
    ++result.records;
    // perf counts a pipe's offsets from after its 16-byte header.
    const uint64_t offset = reader.file_mode() ? rec.offset : rec.offset - kPipeHeaderSize;
    auto it = fmt::appender(buf);
    fmt::format_to(it, "\n{}@{} [{:#x}]: event: {}\n", hex_or_zero(offset), label, rec.header.size, type);
    append_hex(rec.bytes, buf);
    append_timestamp(session, rec, have_sample ? &sample : nullptr, buf);
    fmt::format_to(it, "{} [{:#x}]: ", hex_or_zero(offset), rec.header.size);
    if (have_sample) append_sample(rec, sample, buf);
    else append_decoded(rec, buf);
    session.observe(rec);  // after: perf prints an attr's record before it knows the attr
    if (buf.size() > (1 << 16)) write();
  }
  write();
  if (std::fflush(out) != 0) throw_runtime("cannot write the output: {}", errno_text(errno));
  result.stop_error = reader.error();
  return result;
}

namespace {

// `what`: how a note names the input ("the recording", or a directory's file).
void dump_one(RecordReader& reader, const std::string& name, const std::string& what, const std::string& label,
              std::FILE* out) {
  dump_raw_records(reader, label, out);
  analysis::conclude_reading(analysis::outcome_of(reader), name, what);
}

}  // namespace

void dump_raw_input(const std::string& path, std::FILE* out) {
  if (!is_directory(path)) {
    auto reader = open_recording(path);
    return dump_one(*reader, path, "the recording", reader->file_mode() ? path : "pipe", out);
  }
  const RecordingDir dir = inspect_recording_dir(path);
  auto readers = open_dir_streams(dir, /*add_rounds=*/false);
  for (size_t i = 0; i < readers.size(); ++i) dump_one(*readers[i], dir.files[i], dir.files[i], dir.files[i], out);
}

}  // namespace sonde::script
