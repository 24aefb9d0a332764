// Each kernel record on its drain's writer thread: samples (an
// extension's rewritten first), MMAP2 with its build-id completed, LOST
// followed by its LOST_SAMPLES, FORK/EXIT told to the extensions and to
// --switch-output's live processes, types perf 6.1 does not know dropped.
#include <sys/mman.h>

#include <cstring>

#include "format/records.h"
#include "record/recorder_parts.h"

namespace sonde::record {

void Recorder::write_kernel_record(Drain& d, std::span<const uint8_t> rec) {
  d.into->out->write_record(rec.data(), rec.size());
  d.into->wrote_in_round = true;
}

// On a drain's writer thread. What is shared between writers (build-ids,
// the extensions' callbacks, live_) is taken under shared_mu_: only for
// MMAP2, FORK and EXIT, never per sample.
void Recorder::handle(Drain& d, std::span<const uint8_t> rec, RecordExtension* ext) {
  format::RecordHeader h;
  std::memcpy(&h, rec.data(), sizeof h);
  switch (h.type) {
    case format::kSample:
      if (ext) {
        std::memcpy(d.scratch.data(), rec.data(), rec.size());
        std::span<uint8_t> w(d.scratch.data(), rec.size());
        if (!ext->rewrite_sample(w)) return;
        ++d.samples;
        write_kernel_record(d, w);
        return;
      }
      ++d.samples;
      write_kernel_record(d, rec);
      return;
    case format::kMmap2: {
      auto m = format::Mmap2View::parse(rec);
      if (!m) return write_kernel_record(d, rec);
      std::memcpy(d.scratch.data(), rec.data(), rec.size());
      std::span<uint8_t> w(d.scratch.data(), rec.size());
      std::lock_guard lock(shared_mu_);
      build_ids_.patch(w);  // also clears a build-id bit the kernel leaked
      write_kernel_record(d, w);
      if (!extensions_.empty() && (m->prot & PROT_EXEC)) tell_exec_mapping(w);
      return;
    }
    case format::kLost:
      write_lost(d, rec);
      return;
    case format::kLostSamples:
      if (auto l = format::LostSamplesView::parse(rec)) d.lost += l->lost;
      write_kernel_record(d, rec);
      return;
    case format::kFork:
    case format::kExit: {
      write_kernel_record(d, rec);
      auto f = extensions_.empty() && !rotated_ ? std::nullopt : format::ForkExitView::parse(rec);
      if (!f) return;
      std::lock_guard lock(shared_mu_);
      if (rotated_ && h.type == format::kFork) live_.on_fork(static_cast<pid_t>(f->pid), static_cast<pid_t>(f->ppid));
      if (rotated_ && h.type == format::kExit) live_.on_exit(static_cast<pid_t>(f->pid), static_cast<pid_t>(f->tid));
      for (RecordExtension* e : extensions_) {
        if (h.type == format::kFork && f->pid != f->ppid) e->on_fork(static_cast<pid_t>(f->pid), static_cast<pid_t>(f->ppid));
        if (h.type == format::kExit && f->pid == f->tid) e->on_exit(static_cast<pid_t>(f->pid));
      }
      return;
    }
    default:
      // perf 6.1 aborts on kernel record types it does not know.
      if (h.type == 0 || h.type > format::kMaxKernelType) {
        ++d.dropped_records;
        return;
      }
      write_kernel_record(d, rec);
  }
}

// perf counts lost samples from LOST_SAMPLES records ("Total Lost Samples"),
// which perf record writes at the end from each event's PERF_FORMAT_LOST
// count; the kernel's LOST records, the same losses, only make it warn of
// "lost chunks". So each LOST is followed by a LOST_SAMPLES of the same count
// and sample_id (written as it happens, so a killed recording keeps it), and
// readers count one or the other, never both (analysis::RecordingWalker).
void Recorder::write_lost(Drain& d, std::span<const uint8_t> rec) {
  write_kernel_record(d, rec);
  auto l = format::LostView::parse(rec);
  if (!l) return;
  d.lost += l->lost;
  uint8_t buf[256];
  const auto sample_id = rec.subspan(sizeof(format::Lost));
  if (size_t n = format::build_lost_samples(buf, l->lost, sample_id)) write_kernel_record(d, {buf, n});
}

// An executable mapping (its MMAP2 as written: with the build id patched
// in when one was found) for the extensions, which keep or probe its object.
void Recorder::tell_exec_mapping(std::span<const uint8_t> mmap2) {
  auto m = format::Mmap2View::parse(mmap2);
  if (!m) return;
  std::string path(m->filename);
  BuildId id;
  if (m->has_build_id()) id = BuildId::from_bytes(m->build_id);
  for (RecordExtension* e : extensions_) e->on_exec_mapping(static_cast<pid_t>(m->pid), path, id);
}

}  // namespace sonde::record
