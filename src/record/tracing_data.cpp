#include "record/tracing_data.h"

#include <dirent.h>
#include <fnmatch.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>

#include "util/error.h"
#include "util/fs.h"
#include "util/parse_int.h"

namespace sonde::record {

namespace {

constexpr const char* kTracefs = "/sys/kernel/tracing";

bool is_dir(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> list_dirs(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    if (e->d_type == DT_DIR || (e->d_type == DT_UNKNOWN && is_dir(dir + "/" + n))) out.push_back(n);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

bool load_tracepoint(const std::string& root, const std::string& sys, const std::string& name, Tracepoint& tp) {
  std::string base = root + "/events/" + sys + "/" + name;
  auto id = read_first_line(base + "/id");
  auto fmt = read_small_file(base + "/format");
  if (!id || !fmt) return false;
  auto v = parse_uint<uint64_t>(*id);
  if (!v) return false;
  tp = Tracepoint{sys, name, v.value, std::move(*fmt)};
  return true;
}

template <typename T>
void put(std::vector<uint8_t>& b, T v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  b.insert(b.end(), p, p + sizeof v);
}
void put_str0(std::vector<uint8_t>& b, std::string_view s) {
  b.insert(b.end(), s.begin(), s.end());
  b.push_back(0);
}
void put_text(std::vector<uint8_t>& b, std::string_view s) { b.insert(b.end(), s.begin(), s.end()); }

}  // namespace

std::string tracefs_root() {
  std::string root = kTracefs;
  if (is_dir(root + "/events")) return root;
  // Not mounted yet: mount it where perf and the kernel docs expect it.
  if (::mount("nodev", kTracefs, "tracefs", 0, nullptr) != 0 && errno != EBUSY)
    throw_runtime("cannot mount tracefs at {}: {}", kTracefs, errno_text(errno));
  if (!is_dir(root + "/events")) throw_runtime("tracefs at {} has no events folder", kTracefs);
  return root;
}

std::vector<Tracepoint> find_tracepoints(std::string_view system, std::string_view name) {
  std::string root = tracefs_root();
  std::string sys_pat(system), name_pat(name);
  std::vector<Tracepoint> out;
  bool sys_glob = sys_pat.find_first_of("*?[") != std::string::npos;
  bool name_glob = name_pat.find_first_of("*?[") != std::string::npos;
  std::vector<std::string> systems = sys_glob ? list_dirs(root + "/events") : std::vector<std::string>{sys_pat};
  for (const auto& s : systems) {
    if (sys_glob && ::fnmatch(sys_pat.c_str(), s.c_str(), 0) != 0) continue;
    std::vector<std::string> names = name_glob ? list_dirs(root + "/events/" + s) : std::vector<std::string>{name_pat};
    for (const auto& n : names) {
      if (name_glob && ::fnmatch(name_pat.c_str(), n.c_str(), 0) != 0) continue;
      Tracepoint tp;
      if (load_tracepoint(root, s, n, tp)) out.push_back(std::move(tp));
    }
  }
  if (out.empty()) throw_usage("unknown event '{}:{}' (no such tracepoint in {}/events)", system, name, root);
  return out;
}

bool find_tracepoint_by_id(uint64_t id, Tracepoint& out) {
  std::string root = tracefs_root();
  for (const auto& s : list_dirs(root + "/events"))
    for (const auto& n : list_dirs(root + "/events/" + s)) {
      auto idtext = read_first_line(root + "/events/" + s + "/" + n + "/id");
      if (!idtext || *idtext != std::to_string(id)) continue;
      return load_tracepoint(root, s, n, out);
    }
  return false;
}

std::vector<uint8_t> build_tracing_data(const std::vector<Tracepoint>& tps) {
  std::string root = tracefs_root();
  std::vector<uint8_t> b;
  b.reserve(16384);
  // 1. magic + "tracing" + version 0.6
  const uint8_t magic[] = {0x17, 0x08, 0x44};
  b.insert(b.end(), magic, magic + 3);
  put_text(b, "tracing");
  put_str0(b, "0.6");
  // 2. endianness (0 = little), sizeof(long), page size
  put<uint8_t>(b, 0);
  put<uint8_t>(b, static_cast<uint8_t>(sizeof(long)));
  put<uint32_t>(b, static_cast<uint32_t>(::sysconf(_SC_PAGESIZE)));
  // 3./4. header_page and header_event
  for (const char* h : {"header_page", "header_event"}) {
    auto text = read_small_file(root + "/events/" + h).value_or("");
    put_str0(b, h);
    put<uint64_t>(b, text.size());
    put_text(b, text);
  }
  // 5. no ftrace formats
  put<uint32_t>(b, 0);
  // 6. event formats grouped by system, in first-seen order
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Tracepoint*>> by_sys;
  for (const auto& tp : tps) {
    auto& v = by_sys[tp.system];
    if (v.empty()) order.push_back(tp.system);
    if (std::none_of(v.begin(), v.end(), [&](const Tracepoint* o) { return o->id == tp.id; })) v.push_back(&tp);
  }
  put<uint32_t>(b, static_cast<uint32_t>(order.size()));
  for (const auto& s : order) {
    put_str0(b, s);
    put<uint32_t>(b, static_cast<uint32_t>(by_sys[s].size()));
    for (const Tracepoint* tp : by_sys[s]) {
      put<uint64_t>(b, tp->format.size());
      put_text(b, tp->format);
    }
  }
  // 7. kallsyms: always empty; perf 6.1 skips it with lseek, which fails on a pipe.
  put<uint32_t>(b, 0);
  // 8. printk formats
  auto printk = read_small_file(root + "/printk_formats").value_or("");
  put<uint32_t>(b, static_cast<uint32_t>(printk.size()));
  put_text(b, printk);
  // 9. saved_cmdlines (version >= 0.6): empty, the stream's COMM records name the tasks.
  put<uint64_t>(b, 0);
  return b;
}

}  // namespace sonde::record
