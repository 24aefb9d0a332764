#include "record/jit_file_keeper.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include <fmt/format.h>

#include "jit/jit_files.h"
#include "util/fd.h"
#include "util/fs.h"
#include "util/mapped_path.h"

namespace sonde::record {

namespace {

bool anonymous_code(const std::string& path) { return is_anonymous_code(classify_mapped_path(path)); }

std::string file_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

JitFileKeeper::JitFileKeeper(std::string dir) : dir_(std::move(dir)) {}

JitFileKeeper::~JitFileKeeper() { stop(); }

void JitFileKeeper::prepare(const RecordTarget&, const perf_event_attr&) {
  // Copies left by an earlier recording to the same output are not this one's.
  if (auto entries = ::opendir(dir_.c_str())) {
    while (dirent* e = ::readdir(entries)) {
      std::string name = e->d_name;
      if (jit::jitdump_pid(name) || jit::perf_map_pid(name)) ::unlink((dir_ + "/" + name).c_str());
    }
    ::closedir(entries);
  }
  thread_ = std::thread([this] { run(); });
}

void JitFileKeeper::on_exec_mapping(pid_t pid, const std::string& path, const BuildId&) {
  std::string source;
  if (jit::jitdump_pid(path)) source = path;
  else if (anonymous_code(path) && pid > 0) source = fmt::format("{}/perf-{}.map", perf_map_dir, pid);
  else return;
  std::lock_guard lock(mu_);
  if (sources_.count(source)) return;
  sources_[source].copy = dir_ + "/" + file_name(source);
}

void JitFileKeeper::run() {
  for (;;) {
    {
      std::unique_lock lock(mu_);
      if (cv_.wait_for(lock, std::chrono::milliseconds(kPollMs), [this] { return stopping_; })) return;
    }
    copy_new_bytes();
  }
}

void JitFileKeeper::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  copy_new_bytes();  // what was written since the last pass
}

// The copying runs without the lock, so the recorder's thread never waits
// for it (map nodes do not move; only this thread touches their counts).
void JitFileKeeper::copy_new_bytes() {
  std::vector<std::pair<const std::string*, Source*>> todo;
  {
    std::lock_guard lock(mu_);
    for (auto& [from, s] : sources_)
      if (!s.truncated && !s.failed) todo.emplace_back(&from, &s);
  }
  for (auto [from, s] : todo) append(*from, *s);
}

// Appends the source's bytes past what was copied (JIT files only grow).
void JitFileKeeper::append(const std::string& from, Source& s) {
  UniqueFd in = open_regular_file(from.c_str());
  if (!in) return;  // not written yet (a perf map appears with the first function), or gone
  struct stat st {};
  if (::fstat(in.get(), &st) != 0 || static_cast<uint64_t>(st.st_size) <= s.copied) return;
  uint64_t want = static_cast<uint64_t>(st.st_size) - s.copied;
  if (s.copied + want > kMaxCopyBytes) {
    want = kMaxCopyBytes - s.copied;
    s.truncated = true;
  }
  if (!dir_made_) {
    try {
      make_dirs(dir_);
      dir_made_ = true;
    } catch (const std::exception&) {
      s.failed = true;
      return;
    }
  }
  UniqueFd out(::open(s.copy.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!out) {
    s.failed = true;
    return;
  }
  char buf[64 * 1024];
  while (want > 0) {
    ssize_t n = ::pread(in.get(), buf, std::min<uint64_t>(want, sizeof buf), static_cast<off_t>(s.copied));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (!write_all(out.get(), buf, static_cast<size_t>(n))) {
      s.failed = true;
      return;
    }
    s.copied += static_cast<uint64_t>(n);
    want -= static_cast<uint64_t>(n);
  }
}

size_t JitFileKeeper::copied() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const auto& [from, s] : sources_) n += s.copied > 0;
  return n;
}

std::string JitFileKeeper::note() const {
  std::lock_guard lock(mu_);
  std::string out;
  for (const auto& [from, s] : sources_) {
    if (s.truncated)
      out += fmt::format("{}{}: copied its first {} MiB only", out.empty() ? "" : "; ", from, kMaxCopyBytes >> 20);
    else if (s.failed)
      out += fmt::format("{}{}: not copied to {}", out.empty() ? "" : "; ", from, s.copy);
  }
  return out;
}

}  // namespace sonde::record
