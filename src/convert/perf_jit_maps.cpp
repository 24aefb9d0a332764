#include "convert/perf_jit_maps.h"

#include <dirent.h>

#include <map>
#include <memory>

#include <fmt/format.h>

#include "jit/jit_files.h"
#include "jit/jitdump.h"
#include "util/fs.h"

namespace sonde::convert {

namespace {


// The recording's copies of perf maps (INPUT.jit/perf-PID.map), by pid.
std::map<uint32_t, std::string> perf_map_copies(const std::string& input_path) {
  std::map<uint32_t, std::string> found;
  const std::string dir = jit::jit_dir_for(input_path);
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
  if (!d) return found;
  while (dirent* e = ::readdir(d.get()))
    if (auto pid = jit::perf_map_pid(e->d_name)) found.emplace(*pid, dir + "/" + e->d_name);
  return found;
}

// A name on one line: perf reads a map line by line.
std::string one_line(std::string_view name) {
  std::string s(name);
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

void append_jitdump(const std::string& path, std::string& map, std::vector<std::string>& notes) {
  std::string bytes, why;
  if (!jit::read_jit_file(path, jit::kMaxJitFileBytes, bytes, &why)) {
    notes.push_back(why);
    return;
  }
  jit::JitDump d = jit::parse_jitdump({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  if (!d.stopped.empty()) notes.push_back(path + " " + d.stopped);
  for (const jit::JitCode& c : d.code) map += fmt::format("{:x} {:x} {}\n", c.addr, c.size, one_line(c.name));
}

}  // namespace

PerfJitMaps write_perf_jit_maps(const std::vector<std::string>& jitdumps, const std::string& input_path,
                                const std::string& out_dir) {
  std::map<uint32_t, std::string> maps;  // pid -> text
  PerfJitMaps result;
  for (const auto& [pid, copy] : perf_map_copies(input_path)) {
    std::string text, why;
    if (jit::read_jit_file(copy, jit::kMaxJitFileBytes, text, &why))
      maps[pid] += text;
    else
      result.notes.push_back(why);
  }
  const std::vector<std::string> copy_dirs{jit::jit_dir_for(input_path)};
  for (const auto& recorded : jitdumps)
    if (auto pid = jit::jitdump_pid(recorded)) append_jitdump(jit::find_jit_file(recorded, copy_dirs), maps[*pid], result.notes);
  for (const auto& [pid, text] : maps) {
    if (text.empty()) continue;
    make_dirs(out_dir);
    std::string path = out_dir + "/perf-" + std::to_string(pid) + ".map";
    write_file_atomic(path, text);
    result.written.push_back(std::move(path));
  }
  return result;
}

}  // namespace sonde::convert
