#include "cache/buildid_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <filesystem>

#include "util/error.h"
#include "util/fd.h"
#include "util/fs.h"

namespace sonde {

namespace {

bool is_hex_id(std::string_view s) {
  if (s.size() < 2 || s.size() > 40 || s.size() % 2) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// Copies src to dst (a new file): reflink when the file system can, else a
// plain copy. Hard links are tried by the caller first.
bool clone_or_copy(const std::string& src, const std::string& dst) {
  UniqueFd in = open_regular_file(src.c_str());
  if (!in) return false;
  UniqueFd out(::open(dst.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (!out) return false;
  if (ioctl(out.get(), FICLONE, in.get()) == 0) return true;
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(in.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    if (!write_all(out.get(), buf, static_cast<size_t>(n))) return false;
  }
  struct stat st;
  if (fstat(in.get(), &st) == 0) fchmod(out.get(), st.st_mode & 0755);
  return true;
}

// Atomically places a symlink `link_path` -> `target`.
void symlink_atomic(const std::string& target, const std::string& link_path) {
  std::string tmp = link_path + unique_temp_suffix();
  if (symlink(target.c_str(), tmp.c_str()) != 0)
    throw_runtime("cannot create {}: {}", tmp, errno_text(errno));
  if (rename(tmp.c_str(), link_path.c_str()) != 0) {
    int e = errno;
    unlink(tmp.c_str());
    throw_runtime("cannot create {}: {}", link_path, errno_text(e));
  }
}

std::optional<std::string> read_link(const std::string& path) {
  char buf[PATH_MAX];
  ssize_t n = readlink(path.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return std::nullopt;
  return std::string(buf, static_cast<size_t>(n));
}

// Checks that `dir` really lies under `root`: a symlink planted inside the
// cache (root/usr -> /etc) must not redirect writes.
void ensure_inside(const std::string& root, const std::string& dir, bool allow_root = false) {
  std::error_code ec1, ec2;
  std::string r = std::filesystem::canonical(root, ec1).string();
  std::string d = std::filesystem::canonical(dir, ec2).string();
  bool ok = !ec1 && !ec2 &&
            ((allow_root && d == r) || (d.size() > r.size() && d.compare(0, r.size(), r) == 0 && d[r.size()] == '/'));
  if (!ok) throw_runtime("refusing to write {}: it resolves outside the cache root {}", dir, root);
}

// mkdir -p of `dir` under `root`, checking the deepest existing ancestor
// before creating anything and the result afterwards.
void make_dirs_inside(const std::string& root, const std::string& dir) {
  make_dirs(root);
  std::filesystem::path p = dir;
  std::error_code ec;
  while (!std::filesystem::exists(p, ec) && p.has_parent_path() && p != p.parent_path()) p = p.parent_path();
  ensure_inside(root, p.string(), true);
  make_dirs(dir);
  ensure_inside(root, dir);
}

}  // namespace

bool is_safe_cache_path(std::string_view p) {
  if (p.empty() || p.front() != '/' || p.find('\0') != std::string_view::npos) return false;
  size_t i = 1;
  while (i <= p.size()) {
    size_t j = p.find('/', i);
    if (j == std::string_view::npos) j = p.size();
    std::string_view comp = p.substr(i, j - i);
    if (comp.empty() || comp == "." || comp == "..") return false;
    i = j + 1;
  }
  return true;
}

BuildIdCache::BuildIdCache(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string BuildIdCache::default_root(const std::string& cli_dir) {
  if (!cli_dir.empty()) return cli_dir;
  if (const char* e = getenv("SONDE_BUILDID_DIR"); e && *e) return e;
  const char* home = getenv("HOME");
  return std::string(home && *home ? home : "/root") + "/.debug";
}

std::optional<std::string> BuildIdCache::entry_dir(const std::string& abs_path, const BuildId& id) const {
  if (!is_safe_cache_path(abs_path) || id.empty()) return std::nullopt;
  return root_ + abs_path + "/" + id.hex();
}

std::string BuildIdCache::make_entry_dir(const std::string& abs_path, const BuildId& id) {
  auto dir = entry_dir(abs_path, id);
  if (!dir) throw_runtime("cannot cache {}: path not usable in the cache", abs_path);
  make_dirs_inside(root_, *dir);
  return *dir;
}

void BuildIdCache::link_entry_if_absent(const std::string& abs_path, const BuildId& id) {
  if (!entry_dir(abs_path, id)) return;
  const std::string hex = id.hex();
  const std::string link_dir = root_ + "/.build-id/" + hex.substr(0, 2);
  const std::string link_path = link_dir + "/" + hex.substr(2);
  if (read_link(link_path)) return;
  make_dirs_inside(root_, link_dir);
  symlink_atomic("../.." + abs_path + "/" + hex, link_path);
}

BuildIdCache::Entry BuildIdCache::add(const std::string& path) {
  std::error_code ec;
  std::filesystem::path real = std::filesystem::canonical(path, ec);
  if (ec) throw_runtime("cannot add {}: {}", path, ec.message());
  auto id = read_build_id(real.string());
  if (!id || id->empty()) throw_runtime("cannot add {}: no build-id (not an ELF file with a GNU build-id note)", path);
  return link_in(real.string(), *id, "elf", true);
}

BuildIdCache::Entry BuildIdCache::add(const std::string& path, const BuildId& expected) {
  std::error_code ec;
  std::filesystem::path real = std::filesystem::canonical(path, ec);
  if (ec) throw_runtime("cannot add {}: {}", path, ec.message());
  auto id = read_build_id(real.string());
  if (!id || !(*id == expected))
    throw_runtime("cannot add {}: build-id mismatch (file has {}, expected {})", path,
                  id ? id->hex() : "none", expected.hex());
  return link_in(real.string(), *id, "elf", true);
}

std::optional<BuildIdCache::Entry> BuildIdCache::add_kallsyms(const BuildId& kernel_id, const std::string& kallsyms_path,
                                                              const std::function<bool()>& cancelled) {
  UniqueFd fd(::open(kallsyms_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw_runtime("cannot read {}: {}", kallsyms_path, errno_text(errno));
  // Written as it is read; an unfinished copy is removed by the
  // PendingFile's destructor, never renamed into place.
  PendingFile copy = begin_kallsyms(kernel_id);
  std::string buf(256 * 1024, '\0');
  bool first = true;
  for (;;) {
    if (cancelled && cancelled()) return std::nullopt;
    ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_runtime("cannot read {}: {}", kallsyms_path, errno_text(errno));
    if (n == 0) break;
    if (first && std::string_view(buf.data(), static_cast<size_t>(n)).starts_with("0000000000000000 "))
      throw_runtime("{} shows no addresses (kernel.kptr_restrict)", kallsyms_path);
    first = false;
    copy.out.write(buf.data(), static_cast<size_t>(n));
  }
  if (first) throw_runtime("{} is empty", kallsyms_path);
  return commit_kallsyms(copy);
}

BuildIdCache::Entry BuildIdCache::add_kallsyms_text(const BuildId& kernel_id, const std::string& text) {
  PendingFile f = begin_kallsyms(kernel_id);
  f.out.write(text);
  return commit_kallsyms(f);
}

BuildIdCache::PendingFile BuildIdCache::begin_kallsyms(const BuildId& kernel_id) {
  if (kernel_id.empty()) throw_runtime("cannot cache kallsyms: no kernel build-id");
  return begin_pseudo("[kernel.kallsyms]", "kallsyms", kernel_id);
}

BuildIdCache::Entry BuildIdCache::commit_kallsyms(PendingFile& f) {
  if (f.out.committed()) throw_runtime("cannot cache kallsyms: nothing pending");
  return commit_pseudo(f);
}

BuildIdCache::Entry BuildIdCache::add_vdso(const BuildId& id, std::span<const uint8_t> image) {
  auto got = read_build_id(image);
  if (id.empty() || !got || !(*got == id))
    throw_runtime("cannot cache the vdso: its image does not have build-id {}", id.empty() ? "(none)" : id.hex());
  PendingFile f = begin_pseudo("[vdso]", "vdso", id);
  f.out.write(image.data(), image.size());
  return commit_pseudo(f);
}

BuildIdCache::PendingFile BuildIdCache::begin_pseudo(const std::string& name, const std::string& file,
                                                     const BuildId& id) {
  Entry entry{id, name, root_ + "/" + name + "/" + id.hex()};
  make_dirs_inside(root_, entry.dir);
  AtomicFile out(entry.dir + "/" + file, {.readable = true});
  return PendingFile{std::move(out), file, std::move(entry)};
}

BuildIdCache::Entry BuildIdCache::commit_pseudo(PendingFile& f) {
  if (!f.out.try_commit()) throw_runtime("cannot rename {} into the cache: {}", f.out.temp_path(), errno_text(errno));
  std::string hex = f.entry.build_id.hex();
  make_dirs_inside(root_, root_ + "/.build-id/" + hex.substr(0, 2));
  symlink_atomic("../../" + f.entry.path + "/" + hex, root_ + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2));
  return f.entry;
}

BuildIdCache::Entry BuildIdCache::link_in(const std::string& real_path, const BuildId& id,
                                          const std::string& file_name, bool /*is_elf*/) {
  auto dir = entry_dir(real_path, id);
  if (!dir) throw_runtime("cannot add {}: path not usable in the cache", real_path);
  make_dirs_inside(root_, *dir);
  std::string dst = *dir + "/" + file_name;
  // An existing verified copy is kept: a second writer has nothing to do.
  if (auto cur = read_build_id(dst); !(cur && *cur == id)) {
    std::string tmp = dst + unique_temp_suffix();
    if (link(real_path.c_str(), tmp.c_str()) != 0 && !clone_or_copy(real_path, tmp)) {
      int e = errno;
      unlink(tmp.c_str());
      throw_runtime("cannot add {} to {}: {}", real_path, root_, errno_text(e));
    }
    if (rename(tmp.c_str(), dst.c_str()) != 0) {
      int e = errno;
      unlink(tmp.c_str());
      throw_runtime("cannot add {} to {}: {}", real_path, root_, errno_text(e));
    }
    // rename(2) of a hard link onto another link of the same inode (a
    // concurrent writer got there first) succeeds without removing the
    // source: drop it explicitly.
    unlink(tmp.c_str());
  }
  std::string hex = id.hex();
  std::string link_dir = root_ + "/.build-id/" + hex.substr(0, 2);
  make_dirs_inside(root_, link_dir);
  std::string target = "../.." + real_path + "/" + hex;
  std::string link_path = link_dir + "/" + hex.substr(2);
  if (read_link(link_path) != target) symlink_atomic(target, link_path);
  return Entry{id, real_path, *dir};
}

std::optional<BuildIdCache::Entry> BuildIdCache::find(const BuildId& id) const {
  if (id.empty()) return std::nullopt;
  std::string hex = id.hex();
  auto target = read_link(root_ + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2));
  if (!target) return std::nullopt;
  // Expected: ../../ABS/PATH/HEX. Anything else (absolute, "..", another
  // build-id) is ignored so a planted link cannot lead outside the root.
  const std::string prefix = "../..";
  std::string suffix = "/" + hex;
  if (target->rfind(prefix, 0) != 0 || target->size() <= prefix.size() + suffix.size() ||
      target->compare(target->size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  std::string path = target->substr(prefix.size(), target->size() - prefix.size() - suffix.size());
  if (path == "/[kernel.kallsyms]" || path == "/[vdso]") {
    return Entry{id, path.substr(1), root_ + path + suffix};
  }
  if (!is_safe_cache_path(path)) return std::nullopt;
  return Entry{id, path, root_ + path + suffix};
}

std::optional<std::string> BuildIdCache::lookup(const BuildId& id, std::string_view file,
                                                std::string* reason) const {
  auto e = find(id);
  if (!e) {
    if (reason) *reason = fmt::format("build-id {} not in cache {}", id.hex(), root_);
    return std::nullopt;
  }
  if (file.find('/') != std::string_view::npos || file == ".." || file.empty()) return std::nullopt;
  std::string p = e->dir + "/" + std::string(file);
  struct stat st;
  if (stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    if (reason) *reason = fmt::format("{}: {}", p, errno_text(errno ? errno : ENOENT));
    return std::nullopt;
  }
  if (file == "elf" || file == "debug") {
    auto got = read_build_id(p);
    if (!got || !(*got == id)) {
      if (reason)
        *reason = fmt::format("{}: cached file {} (build-id {})", p, got ? "does not match" : "is not a valid ELF",
                              got ? got->hex() : "none");
      return std::nullopt;
    }
  }
  return p;
}

std::vector<BuildIdCache::Entry> BuildIdCache::list(std::vector<std::string>* skipped) const {
  std::vector<Entry> out;
  std::string base = root_ + "/.build-id";
  std::error_code ec;
  for (const auto& sub : std::filesystem::directory_iterator(base, ec)) {
    std::string xx = sub.path().filename().string();
    if (xx.size() != 2 || !is_hex_id(xx)) continue;
    std::error_code ec2;
    for (const auto& ent : std::filesystem::directory_iterator(sub.path(), ec2)) {
      std::string rest = ent.path().filename().string();
      auto id = is_hex_id(xx + rest) ? BuildId::from_hex(xx + rest) : std::nullopt;
      std::optional<Entry> e = id ? find(*id) : std::nullopt;
      if (!e) {
        if (skipped) skipped->push_back(ent.path().string());
        continue;
      }
      out.push_back(std::move(*e));
    }
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
    return a.path != b.path ? a.path < b.path : a.build_id.hex() < b.build_id.hex();
  });
  return out;
}

bool BuildIdCache::remove(const BuildId& id) {
  auto e = find(id);
  std::string hex = id.hex();
  std::string link_path = root_ + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2);
  bool had_link = unlink(link_path.c_str()) == 0;
  if (!e) return had_link;
  std::error_code ec;
  // e->dir was validated by find() as a string; a planted symlink on the way
  // could still lead outside, so check where it really is before deleting.
  try {
    ensure_inside(root_, e->dir);
  } catch (const Error&) {
    return had_link;
  }
  std::filesystem::remove_all(e->dir, ec);
  // Drop now-empty parent folders up to the root, as perf does.
  std::filesystem::path p = std::filesystem::path(e->dir).parent_path();
  while (p.string().size() > root_.size() && rmdir(p.c_str()) == 0) p = p.parent_path();
  return true;
}

std::vector<BuildIdCache::Entry> BuildIdCache::purge_missing() {
  std::vector<Entry> purged;
  for (auto& e : list()) {
    if (e.path.front() != '/') continue;  // kernel, vdso: no original file to check
    struct stat st;
    if (stat(e.path.c_str(), &st) == 0) continue;
    if (remove(e.build_id)) purged.push_back(std::move(e));
  }
  return purged;
}

}  // namespace sonde
