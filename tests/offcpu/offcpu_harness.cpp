#include "offcpu_harness.h"

#include <linux/bpf.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/test_support.h"

namespace sonde::test {

bool ScriptSample::has(const std::string& sym) const {
  for (const auto& s : syms)
    if (s == sym) return true;
  return false;
}

std::vector<ScriptSample> parse_script(const std::string& text) {
  std::vector<ScriptSample> out;
  for (const auto& line : lines(text)) {
    if (line.empty()) continue;
    std::istringstream ls(line);
    if (line[0] == ' ' || line[0] == '\t') {
      std::string addr, sym;
      ls >> addr >> sym;
      if (!out.empty()) out.back().syms.push_back(sym.substr(0, sym.find('+')));
      continue;
    }
    ScriptSample s;
    std::string ids;
    ls >> s.comm >> ids >> s.period >> s.event;
    if (!s.event.empty() && s.event.back() == ':') s.event.pop_back();
    size_t slash = ids.find('/');
    if (slash == std::string::npos) continue;
    s.pid = std::stoi(ids.substr(0, slash));
    s.tid = std::stoi(ids.substr(slash + 1));
    out.push_back(std::move(s));
  }
  return out;
}

std::map<std::string, double> fixture_ms(const std::string& out) {
  std::map<std::string, double> m;
  std::istringstream in(out);
  std::string word;
  while (in >> word) {
    size_t eq = word.find("_ns=");
    if (eq != std::string::npos) m[word.substr(0, eq)] = std::stod(word.substr(eq + 4)) / 1e6;
  }
  return m;
}

namespace {

uint32_t fdinfo_field(const std::string& path, const std::string& name) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(name + ":", 0) == 0) return static_cast<uint32_t>(std::stoul(line.substr(name.size() + 1)));
  return 0;
}

bool exists_by_id(int cmd, uint32_t id) {
  union bpf_attr attr;
  std::memset(&attr, 0, sizeof attr);
  if (cmd == BPF_LINK_GET_FD_BY_ID) attr.link_id = id;
  else attr.prog_id = id;
  int fd = static_cast<int>(syscall(__NR_bpf, cmd, &attr, sizeof attr));
  if (fd >= 0) {
    close(fd);
    return true;
  }
  return errno != ENOENT;
}

}  // namespace

BpfIds bpf_ids_of(pid_t pid) {
  BpfIds ids;
  std::string base = "/proc/" + std::to_string(pid);
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(base + "/fd", ec)) {
    char buf[256] = {};
    ssize_t len = readlink(e.path().c_str(), buf, sizeof buf - 1);
    if (len <= 0) continue;
    std::string target(buf, static_cast<size_t>(len));
    std::string info = base + "/fdinfo/" + e.path().filename().string();
    if (target == "anon_inode:bpf_link") {
      if (uint32_t id = fdinfo_field(info, "link_id")) ids.links.push_back(id);
      if (uint32_t id = fdinfo_field(info, "prog_id")) ids.progs.push_back(id);
    } else if (target == "anon_inode:bpf-prog") {
      if (uint32_t id = fdinfo_field(info, "prog_id")) ids.progs.push_back(id);
    }
  }
  return ids;
}

pid_t start_sonde_until(const std::vector<std::string>& args, const std::function<bool(const BpfIds&)>& ready, BpfIds& ids) {
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    std::string bin = sonde_bin();
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  wait_until(
      [&] {
        ids = bpf_ids_of(pid);
        return ready(ids);
      },
      std::chrono::seconds(20));
  return pid;
}

bool bpf_link_exists(uint32_t id) { return exists_by_id(BPF_LINK_GET_FD_BY_ID, id); }
bool bpf_prog_exists(uint32_t id) { return exists_by_id(BPF_PROG_GET_FD_BY_ID, id); }

size_t count_loaded_programs(const std::string& prefix) {
  size_t n = 0;
  uint32_t id = 0;
  for (;;) {
    union bpf_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.start_id = id;
    if (syscall(__NR_bpf, BPF_PROG_GET_NEXT_ID, &attr, sizeof attr) != 0) break;
    id = attr.next_id;
    std::memset(&attr, 0, sizeof attr);
    attr.prog_id = id;
    int fd = static_cast<int>(syscall(__NR_bpf, BPF_PROG_GET_FD_BY_ID, &attr, sizeof attr));
    if (fd < 0) continue;
    bpf_prog_info info;
    std::memset(&info, 0, sizeof info);
    std::memset(&attr, 0, sizeof attr);
    attr.info.bpf_fd = static_cast<uint32_t>(fd);
    attr.info.info_len = sizeof info;
    attr.info.info = reinterpret_cast<uint64_t>(&info);
    if (syscall(__NR_bpf, BPF_OBJ_GET_INFO_BY_FD, &attr, sizeof attr) == 0 &&
        std::string(info.name).rfind(prefix, 0) == 0)
      ++n;
    close(fd);
  }
  return n;
}

bool bpf_ids_gone(const BpfIds& ids, double seconds) {
  return wait_until(
      [&] {
        bool any = false;
        for (uint32_t id : ids.links) any |= bpf_link_exists(id);
        for (uint32_t id : ids.progs) any |= bpf_prog_exists(id);
        return !any;
      },
      std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000)));
}

int wait_status(pid_t pid) {
  int st = 0;
  ::waitpid(pid, &st, 0);
  return st;
}

std::vector<pid_t> children_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  std::vector<pid_t> out;
  for (pid_t child = 0; in >> child;) out.push_back(child);
  return out;
}

}  // namespace sonde::test
