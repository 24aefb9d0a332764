#include "record/proc_synthesizer.h"

#include <dirent.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "util/fs.h"

namespace sonde::record {

namespace {

std::vector<pid_t> numeric_entries(const std::string& dir) {
  std::vector<pid_t> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    pid_t v = 0;
    const char* s = e->d_name;
    auto [p, ec] = std::from_chars(s, s + std::strlen(s), v);
    if (ec == std::errc() && *p == '\0' && v > 0) out.push_back(v);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::string thread_comm(pid_t pid, pid_t tid) {
  auto c = read_first_line("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/comm");
  return c.value_or("");
}

void synthesize_fork(const SynthContext& ctx, pid_t pid, pid_t tid) {
  perf::RecordBuilder b(perf::kFork, 0);
  b.put(static_cast<uint32_t>(pid)).put(static_cast<uint32_t>(pid));
  b.put(static_cast<uint32_t>(tid)).put(static_cast<uint32_t>(pid));
  b.put(uint64_t{0});
  ctx.put_trailer(b, pid, tid);
  ctx.emit(b);
}

void synthesize_maps(const SynthContext& ctx, pid_t pid) {
  auto maps = read_small_file("/proc/" + std::to_string(pid) + "/maps");
  if (!maps) return;
  size_t pos = 0;
  while (pos < maps->size()) {
    size_t nl = maps->find('\n', pos);
    if (nl == std::string::npos) nl = maps->size();
    std::string line = maps->substr(pos, nl - pos);
    pos = nl + 1;
    unsigned long long start = 0, end = 0, off = 0, ino = 0;
    unsigned maj = 0, min = 0;
    char perms[8] = {};
    int name_at = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj, &min, &ino,
                    &name_at) < 7)
      continue;
    if (perms[2] != 'x' && !ctx.data_maps) continue;  // like the kernel without mmap_data: code only
    std::string name = name_at > 0 && static_cast<size_t>(name_at) <= line.size() ? line.substr(name_at) : "";
    if (name.empty()) name = "//anon";
    uint32_t prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
                    (perms[2] == 'x' ? PROT_EXEC : 0);
    uint32_t flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;

    perf::Mmap2Fixed m{};
    // Data mappings carry MISC_MMAP_DATA, as the kernel's do: readers know
    // them for what they are (no code, no symbols).
    m.header = {perf::kMmap2, static_cast<uint16_t>(perf::kMiscUser | ((prot & PROT_EXEC) ? 0 : perf::kMiscMmapData)), 0};
    m.pid = m.tid = static_cast<uint32_t>(pid);
    m.addr = start;
    m.len = end - start;
    m.pgoff = off;
    m.inode.maj = maj;
    m.inode.min = min;
    m.inode.ino = ino;
    m.prot = prot;
    m.flags = flags;
    if ((prot & PROT_EXEC) && BuildIdPatcher::wants_build_id(name)) {
      if (auto id = ctx.build_ids.lookup(pid, start, end, makedev(maj, min), ino, name); id && !id->empty()) {
        perf::set_mmap2_build_id(m, id->bytes.data(), id->size);
      }
    }
    perf::RecordBuilder b(perf::kMmap2, m.header.misc);
    b.raw().clear();
    b.put(m);
    b.put_cstring(name, 8);
    ctx.put_trailer(b, pid, pid);
    ctx.emit(b);
  }
}

}  // namespace

std::vector<pid_t> list_threads(pid_t pid) { return numeric_entries("/proc/" + std::to_string(pid) + "/task"); }

void synthesize_comm(const SynthContext& ctx, pid_t pid, pid_t tid, const std::string& comm) {
  perf::RecordBuilder b(perf::kComm, 0);
  b.put(static_cast<uint32_t>(pid)).put(static_cast<uint32_t>(tid));
  b.put_cstring(comm, 8);
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
