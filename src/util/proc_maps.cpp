#include "util/proc_maps.h"

#include <sys/stat.h>

#include <cstdio>

#include "util/fd.h"
#include "util/fields.h"
#include "util/fs.h"
#include "util/parse_int.h"

namespace sonde {

namespace {

bool parse_hex(std::string_view s, uint64_t& out) { return parse_uint_into(s, out, IntSyntax::Hex); }

// "START-END"
bool parse_range(std::string_view s, MapsLine& m) {
  size_t dash = s.find('-');
  if (dash == std::string_view::npos) return false;
  return parse_hex(s.substr(0, dash), m.start) && parse_hex(s.substr(dash + 1), m.end) && m.end >= m.start;
}

// "MAJ:MIN", both hex.
bool parse_dev(std::string_view s, MapsLine& m) {
  size_t colon = s.find(':');
  if (colon == std::string_view::npos) return false;
  return parse_uint_into(s.substr(0, colon), m.dev_major, IntSyntax::Hex) &&
         parse_uint_into(s.substr(colon + 1), m.dev_minor, IntSyntax::Hex);
}

bool valid_perms(std::string_view p) {
  return p.size() == 4 && (p[0] == 'r' || p[0] == '-') && (p[1] == 'w' || p[1] == '-') &&
         (p[2] == 'x' || p[2] == '-') && (p[3] == 'p' || p[3] == 's');
}

}  // namespace

std::optional<MapsLine> parse_maps_line(std::string_view line) {
  MapsLine m;
  std::string_view rest = line;
  std::string_view range = next_field(rest);
  m.perms = next_field(rest);
  std::string_view offset = next_field(rest), dev = next_field(rest), inode = next_field(rest);
  if (!parse_range(range, m) || !valid_perms(m.perms) || !parse_hex(offset, m.offset) || !parse_dev(dev, m))
    return std::nullopt;
  if (!parse_uint_into(inode, m.inode)) return std::nullopt;
  size_t b = rest.find_first_not_of(" \t");
  m.path = b == std::string_view::npos ? std::string_view() : rest.substr(b);
  return m;
}

std::optional<std::string> read_proc_maps(pid_t pid) {
  return read_small_file(pid == 0 ? std::string("/proc/self/maps") : "/proc/" + std::to_string(pid) + "/maps");
}

std::string proc_root_path(pid_t pid, std::string_view path) {
  std::string p = "/proc/" + std::to_string(pid) + "/root";
  p += path;
  return p;
}

std::string path_in_process(pid_t pid, std::string_view path) {
  if (pid > 0) {
    std::string via_root = proc_root_path(pid, path);
    struct stat st {};
    if (::stat(via_root.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return via_root;
  }
  return std::string(path);
}

namespace {

// Is the file open on `fd` the mapped one? By path it may have been
// replaced since (a rebuild), and then its contents would be another's.
bool is_mapped_file(int fd, const MappedFileId& id) {
  if (id.ino == 0) return true;  // the record does not say: the path is all there is
  struct stat st {};
  return ::fstat(fd, &st) == 0 && st.st_ino == id.ino && st.st_dev == id.dev;
}

}  // namespace

UniqueFd open_mapped_file(pid_t pid, std::string_view path, const MappedFileId& id) {
  UniqueFd fd;
  if (pid > 0 && id.end > id.start) {
    char mf[96];
    std::snprintf(mf, sizeof mf, "/proc/%d/map_files/%llx-%llx", pid, static_cast<unsigned long long>(id.start),
                  static_cast<unsigned long long>(id.end));
    fd = open_regular_file(mf);
  }
  if (!fd && pid > 0) {
    fd = open_regular_file(proc_root_path(pid, path).c_str());
    if (fd && !is_mapped_file(fd.get(), id)) fd.reset();
  }
  if (!fd) {
    fd = open_regular_file(std::string(path).c_str());
    if (fd && !is_mapped_file(fd.get(), id)) fd.reset();
  }
  return fd;
}

}  // namespace sonde
