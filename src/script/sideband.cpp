// --show-mmap-events and --show-task-events: perf script's lines for
// MMAP/MMAP2 and COMM/FORK/EXIT records, between the samples in time order.
#include <algorithm>

#include "script/record_text.h"
#include "script/script_printer.h"
#include "format/records.h"

namespace sonde::script {

using namespace sonde::format;

namespace {

bool is_mmap(uint32_t type) { return type == kMmap || type == kMmap2; }
bool is_task(uint32_t type) { return type == kComm || type == kFork || type == kExit; }


}  // namespace

void ScriptPrinter::print_record(const RecordView& rec) {
  print_header_once();
  const uint32_t type = rec.header.type;
  if (!(options_.show_mmap_events && is_mmap(type)) && !(options_.show_task_events && is_task(type))) return;
  if (!sideband_cpu_shown(rec)) return;
  append_sideband_start(rec);
  append_record_text(rec, buf_);
  if (buf_.size() > (1 << 16)) flush();
}

// -C: perf's filter_cpu, for records whose sample_id carries a CPU.
bool ScriptPrinter::sideband_cpu_shown(const RecordView& rec) const {
  const std::vector<int>& cpus = options_.filter.cpus;
  if (cpus.empty()) return true;
  SampleId id;
  const Session& session = walker_.session();
  session.decode_sample_id(rec, id);
  const EventInfo* ev = id.id ? session.event_for_id(id.id) : nullptr;
  if (!ev && !session.events().empty()) ev = &session.events().front();
  if (!ev || !ev->attr.sample_id_all || !(ev->attr.sample_type & PERF_SAMPLE_CPU)) return true;
  return std::binary_search(cpus.begin(), cpus.end(), static_cast<int>(id.cpu));
}

// perf names a thread it has no COMM for ":TID", the idle thread "swapper",
// and prints ":-1" when the record names no thread.
void ScriptPrinter::append_sideband_start(const RecordView& rec) {
  SampleId id;
  const Session& session = walker_.session();
  session.decode_sample_id(rec, id);
  const EventInfo* ev = id.id ? session.event_for_id(id.id) : nullptr;
  if (!ev && !session.events().empty()) ev = &session.events().front();
  // The thread the record is about (the child's for FORK); -1 if unreadable.
  const RecordThread thread = record_thread(rec.bytes).value_or(RecordThread{UINT32_MAX, UINT32_MAX});
  const uint32_t pid = thread.pid, tid = thread.tid;
  std::string_view comm = tid == UINT32_MAX ? std::string_view(":-1") : walker_.space().comm(pid, tid);
  std::string unnamed;
  if (comm.empty() && tid == 0) {
    comm = "swapper";
  } else if (comm.empty()) {
    unnamed = fmt::format(":{}", int32_t(tid));
    comm = unnamed;
  }
  if (ev && !ev->attr.sample_id_all) id.pid = pid, id.tid = tid, id.cpu = 0;
  auto out = fmt::appender(buf_);
  const uint64_t sec = id.time / 1000000000, frac = id.time % 1000000000;
  if (!options_.fields.enabled) {  // sonde's own line: COMM PID/TID [CPU] TIME:
    if (options_.nanoseconds) fmt::format_to(out, "{} {:>7}/{:<7} [{:03}] {}.{:09}: ", comm, id.pid, id.tid, id.cpu, sec, frac);
    else fmt::format_to(out, "{} {:>7}/{:<7} [{:03}] {}.{:06}: ", comm, id.pid, id.tid, id.cpu, sec, frac / 1000);
    return;
  }
  const bool tracepoint = ev && ev->attr.type == PERF_TYPE_TRACEPOINT;
  uint32_t f = tracepoint ? options_.fields.tracepoint : options_.fields.other;
  if (ev && !(ev->attr.sample_type & PERF_SAMPLE_CPU) && !options_.fields.named) f &= ~kFieldCpu;
  const bool chain = ev && (ev->attr.sample_type & PERF_SAMPLE_CALLCHAIN) && !options_.hide_callchain &&
                     (options_.file_mode ? (f & kFieldIp) != 0 : !(options_.fields.removed & kFieldIp));
  if (f & kFieldComm) {
    if (chain) fmt::format_to(out, "{} ", comm);
    else fmt::format_to(out, "{:>16} ", comm);
  }
  if ((f & kFieldPid) && (f & kFieldTid)) fmt::format_to(out, "{:>5}/{:<5} ", int32_t(id.pid), int32_t(id.tid));
  else if (f & kFieldPid) fmt::format_to(out, "{:>5} ", int32_t(id.pid));
  else if (f & kFieldTid) fmt::format_to(out, "{:>5} ", int32_t(id.tid));
  if (f & kFieldCpu) fmt::format_to(out, "[{:03}] ", id.cpu);
  if (f & kFieldTime) append_time(id.time);
}

}  // namespace sonde::script
