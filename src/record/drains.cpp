// Draining decoupled from writing: a DrainReader fills each drain's queue
// from its rings (the drop order: record/drain_reader.h), its writer thread
// empties the queue into its stream through the record handler; with
// --threads each drain has a thread of its own, and with --threads -o - one
// writer merges every queue into one ordered stream.
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "format/user_regs.h"
#include "record/recorder_parts.h"
#include "util/clock.h"
#include "util/error.h"

namespace sonde::record {

// The drains and their rings: one drain for everything, or with --threads
// the main one (DIR/data: extension rings) and one per thread spec (its
// CPUs' kernel rings).
void Recorder::plan_drains() {
  auto main = std::make_unique<Drain>();
  main->main = true;
  drains_.push_back(std::move(main));
  for (const auto& spec : thread_specs_) {
    auto d = std::make_unique<Drain>();
    d->affinity = spec.affinity;
    if (plan_.merged) d->into = drains_.front().get();
    drains_.push_back(std::move(d));
  }
  for (size_t i = 0; i < rings_.size(); ++i) {
    size_t owner = 0;
    for (size_t t = 0; t < thread_specs_.size() && !rings_[i].extension; ++t) {
      const auto& cpus = thread_specs_[t].cpus;
      if (std::find(cpus.begin(), cpus.end(), rings_[i].cpu) != cpus.end()) owner = t + 1;
    }
    drains_[owner]->rings.push_back(i);
  }
}

// One pass over a drain's ring buffers into its queue, ended by a round
// marker (its writer writes the records and the FINISHED_ROUND).
void Recorder::drain_pass(Drain& d, bool final) {
  d.reader->begin_pass();
  for (size_t i : d.rings) d.reader->drain(*rings_[i].buffer, static_cast<uint16_t>(i));
  d.reader->end_pass(final);
}

void Recorder::start_threads() {
  size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  uint64_t regs = opts_.user_stack_bytes ? format::kUnwindRegsX86_64 : 0;
  for (auto& dp : drains_) {
    Drain& d = *dp;
    // The queue holds at least what its rings can: a full set of rings
    // never has to wait for the writer.
    size_t rings = d.rings.size() * opts_.mmap_pages * page;
    d.queue = std::make_unique<RecordQueue>(std::max(opts_.user_buffer_bytes, rings));
    d.reader = std::make_unique<DrainReader>(*d.queue, sample_type_, regs);
    d.produce_write = [this, &d](std::span<const uint8_t> rec) { write_kernel_record(d, rec); };
  }
  // Every queue exists before any writer starts (the merge reads them all).
  for (auto& dp : drains_) {
    Drain& d = *dp;
    if (plan_.merged && d.main) d.writer = std::thread([this] { merge_loop(); });
    else if (!plan_.merged) d.writer = std::thread([this, &d] { write_loop(d); });
  }
  if (drains_.size() == 1) return;
  stop_event_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!stop_event_) throw_runtime("cannot create an eventfd: {}", errno_text(errno));
  for (size_t i = 1; i < drains_.size(); ++i) {
    Drain& d = *drains_[i];
    d.drainer = std::thread([this, &d] { drainer_loop(d); });
    if (!d.affinity.empty()) {
      cpu_set_t set;
      CPU_ZERO(&set);
      for (int c : d.affinity) CPU_SET(c, &set);
      ::pthread_setaffinity_np(d.drainer.native_handle(), sizeof set, &set);
    }
  }
}

// A drain thread only copies, and is late only when it is not scheduled:
// on busy CPUs under -F max the sampling interrupts and the workload
// starve it, and the kernel drops records its rings cannot hold. So it
// asks for a higher priority (nice -10; refused without CAP_SYS_NICE, then
// it runs as before). The writer threads keep the normal priority.
void raise_drain_priority() {
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), -10);
}

// --threads: a drain thread polls its own rings (and the stop event) and
// drains them until told to stop, then makes its final pass.
void Recorder::drainer_loop(Drain& d) {
  raise_drain_priority();
  try {
    std::vector<pollfd> pfds;
    pfds.push_back({stop_event_.get(), POLLIN, 0});
    for (size_t i : d.rings) pfds.push_back({rings_[i].buffer->fd(), POLLIN, 0});
    while (!stop_drainers_.load()) {
      int n = ::poll(pfds.data(), pfds.size(), kPollTimeoutMs);
      if (n < 0 && errno != EINTR) throw_runtime("poll failed: {}", errno_text(errno));
      for (size_t i = 1; n > 0 && i < pfds.size(); ++i)
        if (pfds[i].revents & (POLLHUP | POLLERR)) pfds[i].fd = -1;
      if (stop_drainers_.load() || d.queue->closed()) break;
      drain_pass(d);
    }
    drain_pass(d, true);
  } catch (...) {
    d.error = std::current_exception();
    d.queue->close();
  }
}

void Recorder::stop_drainers() {
  stop_drainers_ = true;
  if (stop_event_) {
    uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(stop_event_.get(), &one, sizeof one);
  }
  for (auto& d : drains_)
    if (d->drainer.joinable()) d->drainer.join();
}

// Joins every thread. On the normal way out the final markers are in the
// queues and each writer finishes what precedes its marker; otherwise
// (an exception) they stop at once.
void Recorder::stop_threads() {
  if (threads_stopped_) return;
  threads_stopped_ = true;
  if (std::uncaught_exceptions() > 0) {
    abandon_ = true;
    for (auto& d : drains_)
      if (d->queue) d->queue->close();  // a drain thread waiting for room gives up
  }
  stop_drainers();
  for (auto& dp : drains_) {
    Drain& d = *dp;
    if (d.writer.joinable()) d.writer.join();
    if (!d.reader) continue;
    const DropCounts& c = d.reader->counts();
    sum_.dropped += c.samples_dropped;
    sum_.stacks_cut += c.stacks_cut;
    sum_.stack_bytes_cut += c.stack_bytes_cut;
    sum_.samples += d.samples;
    sum_.lost += d.lost;
    sum_.dropped_records += d.dropped_records;
    d.samples = d.lost = d.dropped_records = 0;
  }
}

// A writer thread: records from its queue into its stream (handle()),
// extension producers and FINISHED_ROUND at each round marker, until the
// final marker. A failure (a closed pipe, a full disk) closes the queue,
// which ends the draining; the error is rethrown on the recorder's thread.
void Recorder::write_loop(Drain& d) {
  try {
    for (;;) {
      const EntryHeader* e = d.queue->front(kPollTimeoutMs);
      if (!e) {
        if (abandon_) return;
        continue;
      }
      const auto* payload = reinterpret_cast<const uint8_t*>(e + 1);
      const bool final = e->kind == EntryKind::kFinal;
      if (e->kind == EntryKind::kRecord) {
        format::RecordHeader h;
        std::memcpy(&h, payload, sizeof h);
        RecordExtension* ext = e->tag == kNoSource ? nullptr : rings_[e->tag].extension;
        handle(d, {payload, std::min<size_t>(h.size, e->size)}, ext);
      } else {
        if (d.main && e->kind == EntryKind::kRound && e->size >= 8) {
          uint64_t pass_start = 0;
          std::memcpy(&pass_start, payload, sizeof pass_start);
          for (RecordExtension* x : extensions_) x->drained_until(pass_start);
        }
        end_round(d, final);
      }
      const bool round_ended = e->kind != EntryKind::kRecord;
      d.queue->pop();
      if (final) return;
      // Between rounds: every record drained so far is in the finished
      // file, every later one goes to the new file.
      if (round_ended && d.main && switch_due() && caught_up(d)) switch_output();
    }
  } catch (...) {
    d.error = std::current_exception();
    d.queue->close();
  }
}

// --threads -o -: one writer empties every drain's queue into one stream.
// A drain's round marker carries the time its pass began: every record it
// queues later is at least that late. FINISHED_ROUND N is written only when
// every drain has passed (by 1 ms, for the kernel's own delay between
// stamping a record and publishing it) the time FINISHED_ROUND N-1 was
// written at, which is later than any record before it. So nothing after
// FINISHED_ROUND N is older than what came before N-1: the rule perf's
// ordering (and sonde's) relies on.
void Recorder::merge_loop() {
  Drain& main = main_drain();
  std::vector<uint64_t> passed(drains_.size(), 0);
  size_t finished = 0;
  uint64_t last_round_at = 0;
  constexpr uint64_t kMargin = 1000000;  // 1 ms
  try {
    while (finished < drains_.size()) {
      bool any = merge_one_pass(passed, finished);
      uint64_t low = *std::min_element(passed.begin(), passed.end());
      if (main.wrote_in_round && low >= last_round_at + kMargin) {
        main.out->write_finished_round();
        main.out->flush();
        main.wrote_in_round = false;
        last_round_at = monotonic_ns();
      }
      if (!any) {
        if (abandon_) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    if (main.wrote_in_round) main.out->write_finished_round();
    main.out->flush();
  } catch (...) {
    main.error = std::current_exception();
    for (auto& d : drains_) d->queue->close();
  }
}

// Takes from each queue up to its next marker (no queue starves the
// others); a marker moves that drain's `passed` time, the main drain's
// also runs the extensions' producers. False when every queue was empty.
bool Recorder::merge_one_pass(std::vector<uint64_t>& passed, size_t& finished) {
  bool any = false;
  for (size_t i = 0; i < drains_.size(); ++i) {
    Drain& d = *drains_[i];
    if (passed[i] == UINT64_MAX) continue;
    while (const EntryHeader* e = d.queue->front(0)) {
      any = true;
      const auto* payload = reinterpret_cast<const uint8_t*>(e + 1);
      if (e->kind == EntryKind::kRecord) {
        format::RecordHeader h;
        std::memcpy(&h, payload, sizeof h);
        RecordExtension* ext = e->tag == kNoSource ? nullptr : rings_[e->tag].extension;
        handle(d, {payload, std::min<size_t>(h.size, e->size)}, ext);
        d.queue->pop();
        continue;
      }
      const bool final = e->kind == EntryKind::kFinal;
      if (e->kind == EntryKind::kRound && e->size >= 8) std::memcpy(&passed[i], payload, 8);
      if (d.main) {
        // Every drain's records before its last pass start are merged.
        const uint64_t horizon = *std::min_element(passed.begin(), passed.end());
        std::lock_guard lock(shared_mu_);
        for (RecordExtension* x : extensions_) {
          x->drained_until(horizon);
          d.samples += x->produce(d.produce_write, final);
        }
      }
      if (final) {
        passed[i] = UINT64_MAX;
        ++finished;
      }
      d.queue->pop();
      break;
    }
  }
  return any;
}

// The records extensions make themselves come after the kernel's of the
// round (theirs are stamped now or earlier, never before what the previous
// round held); then the FINISHED_ROUND and a flush.
void Recorder::end_round(Drain& d, bool final) {
  if (d.main) {
    std::lock_guard lock(shared_mu_);
    for (RecordExtension* e : extensions_) d.samples += e->produce(d.produce_write, final);
  }
  if (d.wrote_in_round) {
    d.out->write_finished_round();
    d.out->flush();
    d.wrote_in_round = false;
  }
}

DrainPriority::DrainPriority() : old(::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()))) {
  raise_drain_priority();
}
DrainPriority::~DrainPriority() { ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), old); }

}  // namespace sonde::record
