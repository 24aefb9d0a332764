// The recording's output: a file, a pipe or a caller's fd, --threads'
// directory of streams, --switch-output's rotated files; and what every
// stream starts with (attrs, features, tracing data, the kernel's maps,
// event names, the tasks that exist already).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>

#include "record/header_writer.h"
#include "record/kernel_maps.h"
#include "record/proc_synthesizer.h"
#include "record/recorder_parts.h"
#include "record/task_state.h"
#include "record/tracing_data.h"
#include "util/diagnostics.h"
#include "util/error.h"

namespace sonde::record {

namespace {
void keep_old_file(const std::string& path, bool stream_directories);
}  // namespace

void Recorder::open_output() {
  Drain& d = main_drain();
  if (plan_.directory) return open_directory();
  if (opts_.output_fd >= 0) {
    int fd = ::fcntl(opts_.output_fd, F_DUPFD_CLOEXEC, 3);
    if (fd < 0) throw_runtime("cannot write the recording: {}", errno_text(errno));
    d.out = std::make_unique<format::StreamWriter>(fd);
    return;
  }
  if (opts_.output == "-") {
    d.out = std::make_unique<format::StreamWriter>(STDOUT_FILENO);
    return;
  }
  keep_old_file(opts_.output, true);
  int fd = ::open(opts_.output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw_runtime("cannot create '{}': {}", opts_.output, errno_text(errno));
  d.out = std::make_unique<format::StreamWriter>(fd);
  d.path = opts_.output;
  verbose("writing {}", opts_.output);
}

namespace {

// DIR/data and every DIR/data.N (N decimal), nothing else.
void remove_streams(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    bool numbered = name.size() > 5 && name.substr(0, 5) == "data." &&
                    name.find_first_not_of("0123456789", 5) == std::string_view::npos;
    if (name == "data" || numbered) ::unlinkat(::dirfd(d), e->d_name, 0);
  }
  ::closedir(d);
}

// A --threads recording's directory: it holds DIR/data.
bool is_stream_directory(const std::string& path) {
  struct stat st {};
  return ::stat((path + "/data").c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// perf's backup: a non-empty regular file, or an earlier --threads
// directory, where the output goes becomes OUTPUT.old (an earlier .old of
// those kinds is replaced), so one earlier recording survives and either
// mode can write where the other did (a --threads output keeps replacing
// its own streams in place: `stream_directories` false). Other directories
// are left alone.
void keep_old_file(const std::string& path, bool stream_directories) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;
  const bool dir = S_ISDIR(st.st_mode);
  if (dir ? !stream_directories || !is_stream_directory(path) : !S_ISREG(st.st_mode)) return;
  if (!dir && st.st_size == 0) {
    ::unlink(path.c_str());
    return;
  }
  std::string old = path;
  old += ".old";
  if (is_stream_directory(old)) {
    remove_streams(old);
    ::rmdir(old.c_str());
  } else if (::stat(old.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    ::unlink(old.c_str());
  }
  if (::rename(path.c_str(), old.c_str()) != 0)
    throw_runtime("cannot move the earlier '{}' aside to '{}': {}", path, old, errno_text(errno));
}

}  // namespace

// --threads: DIR/data and DIR/data.N (docs/format.md). An earlier
// recording's streams in DIR are removed first (a stale data.5 beside a
// 2-thread recording would be read as part of it); other files stay. If
// any stream cannot be created, those made are removed again.
void Recorder::open_directory() {
  const std::string& dir = opts_.output;
  keep_old_file(dir, false);
  bool made = ::mkdir(dir.c_str(), 0755) == 0;
  if (!made && errno != EEXIST) throw_runtime("cannot create the directory '{}': {}", dir, errno_text(errno));
  if (!made) remove_streams(dir);
  for (size_t i = 0; i < drains_.size(); ++i) {
    Drain& d = *drains_[i];
    d.path = dir + (i == 0 ? std::string("/data") : "/data." + std::to_string(i - 1));
    int fd = ::open(d.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      int err = errno;
      for (size_t j = 0; j < i; ++j) {
        drains_[j]->out.reset();
        ::unlink(drains_[j]->path.c_str());
      }
      if (made) ::rmdir(dir.c_str());
      if (err == EMFILE || err == ENFILE)
        throw_runtime("cannot create '{}': too many open files (RLIMIT_NOFILE; --threads needs {} streams)", d.path,
                      drains_.size());
      throw_runtime("cannot create '{}': {}", d.path, errno_text(err));
    }
    d.out = std::make_unique<format::StreamWriter>(fd);
    verbose("writing {} ({} ring buffers)", d.path, d.rings.size());
  }
}

// Everything a stream holds before the kernel's records. With
// --switch-output, every file starts with it: each is read on its own.
// With --threads every stream has the attrs, features and names; only the
// main one (DIR/data) the synthesized records.
void Recorder::write_preamble(Drain& d) {
  // Each file is one zstd stream of its own (its reader starts decoding at
  // its first COMPRESSED record); the first file's compressor was made in
  // validate(), before any output existed.
  if (!compressor_ && opts_.compression_level > 0)
    compressor_ = std::make_unique<format::RecordCompressor>(opts_.compression_level);
  SynthContext ctx{*d.out, sample_type_, events_.front().ids.front(), build_ids_,
                  opts_.user_stack_bytes != 0 || opts_.data_addresses};
  write_metadata(ctx, d);
  if (d.main) synthesize_tasks(ctx);
  d.out->write_finished_init();
  d.out->flush();
  if (d.main) {
    preamble_bytes_ = d.out->bytes_written();
    file_started_ = std::chrono::steady_clock::now();
  }
  // Like perf -z: what is drained from the kernel is compressed, the
  // preamble above stays plain.
  if (compressor_) d.out->compress_from_here(std::move(compressor_));
}

// Attrs, features, tracing data, the kernel's maps and the event names.
void Recorder::write_metadata(const SynthContext& ctx, Drain& d) {
  HeaderInfo info;
  for (auto& ev : events_) info.events.push_back(format::EventDesc{ev.attr, ev.spec.name, ev.ids});
  for (auto& d : ext_descs_) info.events.push_back(d);
  info.cmdline = opts_.cmdline;
  info.version = opts_.version;
  if (plan_.mono_clock) info.clockid = CLOCK_MONOTONIC;
  if (opts_.compression_level > 0) {
    info.compression_level = opts_.compression_level;
    size_t ring = opts_.mmap_pages * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    info.compressed_record_max = static_cast<uint32_t>(std::max(format::RecordCompressor::kSliceBytes, ring));
  }
  write_header(*d.out, info);

  // Tracing metadata after all attrs (perf binds formats to attrs when it
  // reads it). Read from tracefs once; every switched file gets the same.
  if (first_file_ && d.main) {
    std::vector<Tracepoint> tps;
    for (auto& ev : events_)
      if (ev.spec.tracepoint) tps.push_back(ev.spec.tp);
    for (auto& d : ext_descs_) {
      Tracepoint tp;
      if (d.attr.type == PERF_TYPE_TRACEPOINT && find_tracepoint_by_id(d.attr.config, tp)) tps.push_back(tp);
    }
    if (!tps.empty()) tracing_blob_ = build_tracing_data(tps);
  }
  if (!tracing_blob_.empty()) d.out->write_tracing_data(tracing_blob_);

  if (d.main) synthesize_kernel_maps(ctx);
  write_event_names(*d.out, info.events);
}

// The tasks that exist before the file's first kernel record. The first
// file: every process with -a/-C, the -p/-t targets, or the workload's
// COMM (its exec brings the rest). A switched file: every process with
// -a/-C, else every recorded process alive now (targets, the workload and
// their children), read from /proc as they are at the switch.
void Recorder::synthesize_tasks(const SynthContext& ctx) {
  if (plan_.system_wide) return opts_.synthesize_tasks ? synthesize_all_processes(ctx) : void();
  if (!first_file_) {
    for (pid_t p : live_.pids()) synthesize_process(ctx, p);
    return;
  }
  if (plan_.workload) {
    std::string base = opts_.command[0].substr(opts_.command[0].rfind('/') + 1);
    synthesize_comm(ctx, workload_.pid(), workload_.pid(), base.substr(0, 15));
    live_.add(workload_.pid());
    return;
  }
  std::vector<pid_t> done;
  for (pid_t p : opts_.pids) {
    if (opts_.synthesize_tasks) synthesize_process(ctx, p);
    done.push_back(p);
  }
  for (pid_t t : opts_.tids) {
    pid_t pid = tgid_of(t);
    if (std::find(done.begin(), done.end(), pid) != done.end()) continue;
    if (opts_.synthesize_tasks) synthesize_process(ctx, pid);
    done.push_back(pid);
  }
  for (pid_t p : done) live_.add(p);
}

// A switched file starts with the recorded processes read from /proc at
// the switch. Records still queued are older than that: a process that
// exited meanwhile would have samples in the new file and no COMM or MMAP2
// there. So a due switch waits until this writer has emptied its queue
// (the drain thread keeps filling it: under sustained pressure it waits at
// most kSwitchCatchUp, then switches anyway).
bool Recorder::caught_up(Drain& d) {
  constexpr auto kSwitchCatchUp = std::chrono::seconds(1);
  if (!d.queue || d.queue->free_bytes() == d.queue->capacity()) return true;
  const auto now = std::chrono::steady_clock::now();
  if (!switch_wait_started_) switch_wait_started_ = now;
  return now - *switch_wait_started_ >= kSwitchCatchUp;
}

// SIGUSR2 (in every --switch-output mode), a file holding SIZE bytes of
// which some are records (a preamble larger than SIZE must not switch on
// every pass), or a file older than TIME.
bool Recorder::switch_due() const {
  if (!rotated_) return false;
  if (switch_requested_) return true;
  const SwitchOutput& so = opts_.switch_output;
  uint64_t bytes = drains_.front()->out->bytes_written();
  if (so.size_bytes && bytes >= so.size_bytes && bytes > preamble_bytes_) return true;
  return so.seconds && std::chrono::steady_clock::now() - file_started_ >= std::chrono::seconds(so.seconds);
}

// Called between drain passes: every record drained so far is in the
// finished file, every later one goes to the new file.
void Recorder::switch_output() {
  switch_wait_started_.reset();
  finish_file();
  first_file_ = false;
  switch_requested_ = false;
  open_output();
  write_preamble(main_drain());
}

// Flushes and closes the current file, counts it, and with --switch-output
// renames it to OUTPUT.TIMESTAMP (dropping the oldest beyond
// --switch-max-files).
void Recorder::finish_file() {
  for (auto& d : drains_) {
    if (!d->out) continue;
    d->out->flush();
    sum_.bytes += d->out->bytes_written();
    if (auto* c = d->out->compressor()) {
      sum_.plain_bytes += c->plain_bytes();
      sum_.packed_bytes += c->compressed_bytes();
    }
    d->out.reset();
  }
  if (plan_.directory) sum_.files = drains_.size();
  sum_.drain_threads = drains_.size();
  if (!rotated_) return;
  std::string name = rotated_->retire_current();
  sum_.files = rotated_->retired();
  if (!opts_.quiet) note("wrote {}", name);
}

}  // namespace sonde::record
