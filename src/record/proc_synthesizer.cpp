#include "record/proc_synthesizer.h"

#include <dirent.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>

#include <algorithm>

#include "format/records.h"
#include "util/fs.h"
#include "util/parse_int.h"
#include "util/proc_maps.h"

namespace sonde::record {

namespace {

std::vector<pid_t> numeric_entries(const std::string& dir) {
  std::vector<pid_t> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    if (auto v = parse_int<pid_t>(e->d_name, 1)) out.push_back(v.value);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::string thread_comm(pid_t pid, pid_t tid) {
  auto c = read_first_line("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/comm");
  return c.value_or("");
}

// A thread of a process that existed before the recording: the child of
// the process's main thread, at time 0.
void synthesize_fork(const SynthContext& ctx, pid_t pid, pid_t tid) {
  format::ForkExitView f;
  f.pid = f.ppid = f.ptid = static_cast<uint32_t>(pid);
  f.tid = static_cast<uint32_t>(tid);
  format::RecordBuilder b = format::build_fork(f);
  ctx.put_trailer(b, pid, tid);
  ctx.emit(b);
}

void synthesize_map(const SynthContext& ctx, pid_t pid, const MapsLine& line) {
  if (!line.executable() && !ctx.data_maps) return;  // like the kernel without mmap_data: code only
  std::string name = line.path.empty() ? "//anon" : std::string(line.path);
  uint32_t prot = (line.readable() ? PROT_READ : 0) | (line.writable() ? PROT_WRITE : 0) |
                  (line.executable() ? PROT_EXEC : 0);

  format::Mmap2View m;
  // Data mappings carry MISC_MMAP_DATA, as the kernel's do: readers know
  // them for what they are (no code, no symbols).
  m.misc = static_cast<uint16_t>(format::kMiscUser | ((prot & PROT_EXEC) ? 0 : format::kMiscMmapData));
  m.pid = m.tid = static_cast<uint32_t>(pid);
  m.addr = line.start;
  m.len = line.end - line.start;
  m.pgoff = line.offset;
  m.maj = line.dev_major;
  m.min = line.dev_minor;
  m.ino = line.inode;
  m.prot = prot;
  m.flags = line.shared() ? MAP_SHARED : MAP_PRIVATE;
  m.filename = name;
  std::optional<BuildId> id;  // the record's id points into it
  if ((prot & PROT_EXEC) && BuildIdPatcher::wants_build_id(name))
    id = ctx.build_ids.lookup(pid, line.start, line.end, makedev(line.dev_major, line.dev_minor), line.inode, name);
  if (id) m.build_id = id->view();  // none when empty: the inode form
  format::RecordBuilder b = format::build_mmap2(m);
  ctx.put_trailer(b, pid, pid);
  ctx.emit(b);
}

void synthesize_maps(const SynthContext& ctx, pid_t pid) {
  auto maps = read_proc_maps(pid);
  if (!maps) return;
  for_each_maps_line(*maps, [&](const MapsLine& line) { synthesize_map(ctx, pid, line); });
}

}  // namespace

std::vector<pid_t> list_threads(pid_t pid) { return numeric_entries("/proc/" + std::to_string(pid) + "/task"); }

void synthesize_comm(const SynthContext& ctx, pid_t pid, pid_t tid, const std::string& comm) {
  format::CommView c;
  c.pid = static_cast<uint32_t>(pid);
  c.tid = static_cast<uint32_t>(tid);
  c.comm = comm;
  format::RecordBuilder b = format::build_comm(c);
  ctx.put_trailer(b, pid, tid);
  ctx.emit(b);
}

void synthesize_process(const SynthContext& ctx, pid_t pid) {
  auto tids = list_threads(pid);
  if (tids.empty()) return;
  synthesize_comm(ctx, pid, pid, thread_comm(pid, pid));
  for (pid_t tid : tids) {
    if (tid == pid) continue;
    synthesize_fork(ctx, pid, tid);
    synthesize_comm(ctx, pid, tid, thread_comm(pid, tid));
  }
  synthesize_maps(ctx, pid);
}

void synthesize_all_processes(const SynthContext& ctx) {
  for (pid_t pid : numeric_entries("/proc")) synthesize_process(ctx, pid);
}

}  // namespace sonde::record
