// sonde's one reader of /proc/PID/maps lines:
//   START-END PERMS OFFSET MAJ:MIN INODE [PATH]
// e.g. "7f3a00000000-7f3a00021000 r-xp 00002000 08:01 1234  /usr/lib/libc.so.6".
// The path is everything after the inode's blanks, as the kernel printed it:
// spaces kept, " (deleted)" kept, "[vdso]", "[anon:NAME]", "/memfd:NAME" as
// they are, "" for an anonymous mapping.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "util/fd.h"

namespace sonde {

struct MapsLine {
  uint64_t start = 0, end = 0;
  std::string_view perms;  // "r-xp": read, write, exec, p(rivate) or s(hared)
  uint64_t offset = 0;     // file offset of `start`
  uint32_t dev_major = 0, dev_minor = 0;
  uint64_t inode = 0;
  std::string_view path;  // points into the parsed line

  bool readable() const { return perms[0] == 'r'; }
  bool writable() const { return perms[1] == 'w'; }
  bool executable() const { return perms[2] == 'x'; }
  bool shared() const { return perms[3] == 's'; }
  // The file was unlinked (or replaced) after it was mapped.
  bool deleted() const { return path.ends_with(" (deleted)"); }
  // A path in the file system (as opposed to "", "[vdso]", "[anon:x]"),
  // possibly deleted: "/memfd:x (deleted)" is one too.
  bool is_path() const { return !path.empty() && path[0] == '/'; }
};

// One line (without its newline); nullopt for anything that is not a maps
// line (missing fields, non-hex addresses, END before START, bad perms).
std::optional<MapsLine> parse_maps_line(std::string_view line);

// Calls f(const MapsLine&) for each well-formed line of a maps text; other
// lines are skipped.
template <typename F>
void for_each_maps_line(std::string_view text, F&& f) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (auto m = parse_maps_line(line)) f(*m);
  }
}

// "What did PID map": the one place a mapped path is turned into a file.
// /proc/PID/root/PATH: PATH in PID's mount namespace, as a name (no check).
std::string proc_root_path(pid_t pid, std::string_view path);
// PATH as PID sees it: /proc/PID/root/PATH (a container has its own root)
// when that names a file, else PATH itself (pid <= 0: PATH).
std::string path_in_process(pid_t pid, std::string_view path);

// The object PID maps at [start, end), opened as a regular file (a FIFO
// put where the mapped file was would block the opener): through
// /proc/PID/map_files/START-END, else through the process's root, else by
// PATH, the last two only when they are still the mapped inode (dev, ino;
// ino 0: the record does not say, the path is all there is). An invalid fd
// when none is.
struct MappedFileId {
  uint64_t start = 0, end = 0;
  uint64_t dev = 0, ino = 0;
};
UniqueFd open_mapped_file(pid_t pid, std::string_view path, const MappedFileId& id);

// The text of /proc/PID/maps (pid 0: this process's, /proc/self/maps);
// nullopt when the process is gone or not readable.
std::optional<std::string> read_proc_maps(pid_t pid);

}  // namespace sonde
