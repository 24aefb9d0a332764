// `--to perf`: a file-mode perf.data through the format module's
// FileModeWriter. Unlike the other formats this copies records, not the
// Profile: perf tools want the original records (MMAP2, COMM, samples with
// their raw call chains). The filters drop samples; every other record is
// kept so the kept samples still resolve.
#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "analysis/reading_outcome.h"
#include "convert/convert.h"
#include "format/file_mode_writer.h"
#include "format/records.h"
#include "format/session.h"
#include "jit/jit_files.h"
#include "util/error.h"

namespace sonde::convert {

namespace {

// The command of each thread, as far as the stream has told so far (COMM
// records, inherited on FORK). Stream order, not time order: a comm filter
// may misjudge samples that race with the thread's exec across CPUs.
class Comms {
 public:
  void observe(const format::RecordView& rec) {
    if (rec.header.type == format::kComm) {
      // A COMM with no byte of text names nothing; an unterminated one names
      // what it holds.
      auto c = format::CommView::parse(rec.bytes);
      if (c && (c->comm_terminated || !c->comm.empty())) comm_[c->tid] = std::string(c->comm);
    } else if (rec.header.type == format::kFork) {
      auto f = format::ForkExitView::parse(rec.bytes);
      if (!f) return;
      auto it = comm_.find(f->ptid);
      if (it != comm_.end()) comm_[f->tid] = it->second;
    }
  }
  std::string_view of(uint32_t tid) const {
    auto it = comm_.find(tid);
    return it == comm_.end() ? std::string_view() : std::string_view(it->second);
  }

 private:
  std::unordered_map<uint32_t, std::string> comm_;
};

bool contains(const std::vector<uint32_t>& v, uint32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// The jitdump a MMAP or MMAP2 record announces, if any.
void note_jitdump(const format::RecordView& rec, std::vector<std::string>& jitdumps) {
  std::string_view file;
  if (rec.header.type == format::kMmap2) {
    if (auto m = format::Mmap2View::parse(rec.bytes)) file = m->filename;
  } else if (rec.header.type == format::kMmap) {
    if (auto m = format::MmapView::parse(rec.bytes)) file = m->filename;
  }
  if (file.empty() || !jit::jitdump_pid(file)) return;
  if (std::find(jitdumps.begin(), jitdumps.end(), file) == jitdumps.end()) jitdumps.emplace_back(file);
}

}  // namespace

uint64_t write_perf_file(format::RecordReader& in, const analysis::ProfileFilter& f, const std::string& out_path,
                         std::vector<std::string>* jitdumps, std::string_view input) {
  format::FileModeWriter w(out_path);  // removes its temporary file unless finish() runs
  format::Session session;
  Comms comms;
  format::RecordView rec;
  format::Sample s;
  uint64_t kept = 0;
  const bool filtering = !f.pids.empty() || !f.tids.empty() || !f.comms.empty() || !f.events.empty() ||
                         !f.time.empty();
  while (in.next(rec)) {
    session.observe(rec);
    if (rec.header.type == format::kSample) {
      if (filtering) {
        if (!session.decode_sample(rec, s) || !s.event) continue;  // report and script skip these too
        if (!f.accepts_event(s.event->name)) continue;
        if (!f.pids.empty() && !contains(f.pids, s.pid)) continue;
        if (!f.tids.empty() && !contains(f.tids, s.tid)) continue;
        if (!f.time.contains(s.time)) continue;
        if (!f.comms.empty() && std::find(f.comms.begin(), f.comms.end(), comms.of(s.tid)) == f.comms.end()) continue;
      }
      ++kept;
    } else {
      comms.observe(rec);
      if (jitdumps) note_jitdump(rec, *jitdumps);
    }
    w.write(rec);
  }
  analysis::throw_if_stopped(analysis::outcome_of(in), input);
  if (kept == 0) throw_runtime("convert: no samples{}", filtering ? " match the filters" : " in the recording");
  w.finish();
  return kept;
}

}  // namespace sonde::convert
