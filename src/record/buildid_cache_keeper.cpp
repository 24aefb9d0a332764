#include "record/buildid_cache_keeper.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cache/buildid_cache.h"
#include "elf/build_id.h"
#include "elf/vdso.h"
#include "util/mapped_path.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/proc_maps.h"

namespace sonde::record {

namespace {

// An object the keeper may copy: anything mapped from an absolute path but
// a memfd (it has no name to open).
bool is_file_path(const std::string& p) {
  switch (classify_mapped_path(p)) {
    case MappedPath::kAnon:
    case MappedPath::kPerfTemp:
    case MappedPath::kDevice:
    case MappedPath::kSysV:
    case MappedPath::kAnonHugepage:
    case MappedPath::kFile:
      return true;
    default:
      return false;
  }
}

// The device the cache lives on: its root, or the nearest existing parent.
dev_t device_of_nearest(std::string path) {
  struct stat st {};
  while (!path.empty()) {
    if (::stat(path.c_str(), &st) == 0) return st.st_dev;
    auto slash = path.rfind('/');
    path = slash == 0 ? "/" : path.substr(0, slash);
    if (slash == std::string::npos) break;
  }
  return 0;
}

}  // namespace

BuildIdCacheKeeper::BuildIdCacheKeeper(std::string cache_root) : root_(std::move(cache_root)) {}

BuildIdCacheKeeper::~BuildIdCacheKeeper() { stop(); }

void BuildIdCacheKeeper::prepare(const RecordTarget& target, const perf_event_attr& base) {
  hard_links_only_ = target.system_wide;
  want_kallsyms_ = !base.exclude_kernel;
  cache_dev_ = device_of_nearest(root_);
  // Mappings that existed before the recording (-p) never reach
  // on_exec_mapping: the worker reads them from /proc first.
  if (target.workload_pid < 0) initial_pids_ = target.pids;
  worker_ = std::thread([this] { run(); });
}

void BuildIdCacheKeeper::on_exec_mapping(pid_t pid, const std::string& path, const BuildId& id) {
  if (id.empty() || !(is_file_path(path) || classify_mapped_path(path) == MappedPath::kVdso)) return;
  std::lock_guard lock(mu_);
  if (stopping_ || !seen_.insert(id).second) return;
  queue_.push_back({pid, path, id});
  cv_.notify_one();
}

void BuildIdCacheKeeper::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (worker_.joinable()) worker_.join();
}

bool BuildIdCacheKeeper::stopping() {
  std::lock_guard lock(mu_);
  return stopping_;
}

void BuildIdCacheKeeper::keep_kallsyms() {
  auto id = read_build_id_from_notes_file(kernel_notes_path);
  if (!id) return;
  try {
    BuildIdCache cache(root_);
    if (cache.lookup(*id, "kallsyms")) return;  // kept before (by sonde or perf)
    // Given up as soon as the recording is over: not worth its teardown.
    kept_kallsyms_ = cache.add_kallsyms(*id, kallsyms_path, [this] { return stopping(); }).has_value();
  } catch (const Error&) {
    // An unwritable cache or hidden addresses only cost the first report some time.
  }
}

void BuildIdCacheKeeper::run() {
  if (want_kallsyms_) keep_kallsyms();
  for (pid_t p : initial_pids_) scan_proc_maps(p);
  for (;;) {
    Item item;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything queued is done
      item = std::move(queue_.front());
      queue_.pop_front();
    }
    keep(item);
  }
}

void BuildIdCacheKeeper::scan_proc_maps(pid_t pid) {
  std::vector<uint8_t> vdso_scratch;
  auto maps = read_proc_maps(pid);
  if (!maps) return;
  for_each_maps_line(*maps, [&](const MapsLine& m) {
    if (!m.executable()) return;
    std::string path(m.path);
    std::optional<BuildId> id;
    if (classify_mapped_path(path) == MappedPath::kVdso) {
      if (m.end > m.start) id = process_vdso_build_id(pid, m.start, m.end - m.start, vdso_scratch);
    } else if (is_file_path(path)) {
      // What the process maps, not what the path names now.
      UniqueFd fd = open_mapped_file(pid, path, {m.start, m.end, makedev(m.dev_major, m.dev_minor), m.inode});
      if (fd) id = read_build_id(fd.get());
    }
    if (!id) return;
    std::lock_guard lock(mu_);
    if (seen_.insert(*id).second) queue_.push_back({pid, path, *id});
  });
}

void BuildIdCacheKeeper::keep(const Item& item) {
  if (classify_mapped_path(item.path) == MappedPath::kVdso) return keep_vdso(item.id);
  // The object as the process sees it (containers have their own root).
  const std::string source = path_in_process(item.pid, item.path);
  struct stat st {};
  if (::stat(source.c_str(), &st) != 0) return void(++skipped_);
  bool can_link = cache_dev_ != 0 && st.st_dev == cache_dev_;
  if (!can_link && (hard_links_only_ || static_cast<uint64_t>(st.st_size) > kMaxCopyBytes)) return void(++skipped_);
  try {
    BuildIdCache cache(root_);
    if (cache.lookup(item.id)) return;  // already kept (by us, perf or another recorder)
    cache.add(source, item.id);  // verifies the build-id; names the entry by the real path
    ++added_;
  } catch (const Error&) {
    ++skipped_;  // a replaced binary (build-id differs) or an unwritable cache: not fatal
  }
}

void BuildIdCacheKeeper::keep_vdso(const BuildId& id) {
  // The image kept is this process's own, when it is the one mapped (the
  // same kernel and ABI); a 32-bit process's vdso is not kept.
  auto own = own_vdso();
  auto own_id = own.empty() ? std::nullopt : read_build_id(own);
  if (!own_id || !(*own_id == id)) return void(++skipped_);
  try {
    BuildIdCache cache(root_);
    if (cache.lookup(id, "vdso")) return;
    cache.add_vdso(id, own);
    ++added_;
  } catch (const Error&) {
    ++skipped_;
  }
}

}  // namespace sonde::record
