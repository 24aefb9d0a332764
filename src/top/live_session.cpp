#include "top/live_session.h"

#include <fcntl.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <utility>

#include "analysis/recording_walker.h"
#include "analysis/unwind_policy.h"
#include "format/stream_reader.h"
#include "util/error.h"

namespace sonde::top {

namespace {

// Room in the pipe for the stream while the reader loads a symbol table
// (the kernel's takes milliseconds); the kernel's default is 64 KiB.
constexpr int kPipeBytes = 1 << 20;

void signal_event(int fd) {
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(fd, &one, sizeof one);
}

}  // namespace

LiveSession::LiveSession(record::RecordOptions record, const SymbolizerOptions& symbols,
                         const analysis::ProfileOptions& profile)
    : record_(std::move(record)), symbolizer_(symbols), builder_(symbolizer_, profile), cache_root_(symbols.cache_root) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw_runtime("cannot create a pipe: {}", errno_text(errno));
  UniqueFd pipe_read(fds[0]);
  pipe_write_.reset(fds[1]);
  ::fcntl(fds[1], F_SETPIPE_SZ, kPipeBytes);  // best effort: a smaller pipe only blocks the recorder sooner
  stop_event_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  ended_event_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!stop_event_ || !ended_event_) throw_runtime("cannot create an eventfd: {}", errno_text(errno));
  record_.output_fd = pipe_write_.get();
  record_.stop_fd = stop_event_.get();
  try {
    recorder_ = std::thread([this] { record_thread(); });
    reader_ = std::thread([this, fd = std::move(pipe_read)]() mutable { read_thread(std::move(fd)); });
    std::unique_lock lock(mu_);
    began_cv_.wait(lock, [&] { return began_ || ended_; });
    if (began_) return;
  } catch (...) {
    signal_event(stop_event_.get());
    join();
    throw;
  }
  // Ended before it began: the recorder's error says why (bad options, no
  // such process, no hardware PMU).
  join();
  if (record_failure_) std::rethrow_exception(record_failure_);
  if (read_failure_) std::rethrow_exception(read_failure_);
  throw_runtime("the recording ended before it began");
}

LiveSession::~LiveSession() {
  try {
    stop();
  } catch (...) {
    // stop() from a destructor reports nothing: the caller calls it first to hear about errors
  }
}

void LiveSession::record_thread() {
  try {
    record::record(record_);
  } catch (...) {
    record_failure_ = std::current_exception();
  }
  pipe_write_.reset();  // the reader sees the end of the stream
}

void LiveSession::read_thread(UniqueFd pipe_read) {
  try {
    auto reader = format::open_recording(std::move(pipe_read), "the live recording");
    analysis::RecordingWalker walker(*reader, analysis::dwarf_unwinding(cache_root_));
    walker.run(
        [&](const format::Sample& s) {
          std::lock_guard lock(mu_);
          builder_.add(s, walker.space());
          ++samples_;
        },
        [&](const format::RecordView&) {
          std::lock_guard lock(mu_);
          lost_ = walker.stats().lost_samples;
          if (!began_) {
            began_ = true;
            began_cv_.notify_all();
          }
        });
  } catch (...) {
    read_failure_ = std::current_exception();
  }
  mark_ended();
}

void LiveSession::mark_ended() {
  {
    std::lock_guard lock(mu_);
    ended_ = true;
  }
  began_cv_.notify_all();
  signal_event(ended_event_.get());
}

void LiveSession::take_interval(Interval& out) {
  std::lock_guard lock(mu_);
  builder_.take_interval(out.profile);
  out.samples = std::exchange(samples_, 0);
  out.lost = lost_;
  out.ended = ended_;
}

void LiveSession::join() {
  if (recorder_.joinable()) recorder_.join();
  if (reader_.joinable()) reader_.join();
}

void LiveSession::stop() {
  signal_event(stop_event_.get());
  join();
  if (auto e = std::exchange(record_failure_, nullptr)) std::rethrow_exception(e);
  if (auto e = std::exchange(read_failure_, nullptr)) std::rethrow_exception(e);
}

}  // namespace sonde::top
