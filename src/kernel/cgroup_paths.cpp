#include "kernel/cgroup_paths.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace sonde::kernel {

namespace {

// mountinfo escapes blanks in paths as octal (\040).
std::string unescape(std::string_view field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    const bool octal = field[i] == '\\' && i + 3 < field.size() && field[i + 1] >= '0' && field[i + 1] <= '3';
    if (octal) {
      out += static_cast<char>((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 + (field[i + 3] - '0'));
      i += 3;
    } else {
      out += field[i];
    }
  }
  return out;
}

}  // namespace

std::string cgroup2_mount(std::string_view mountinfo) {
  std::istringstream in{std::string(mountinfo)};
  std::string line;
  while (std::getline(in, line)) {
    // "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER"
    const size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream tail(line.substr(dash + 3));
    std::string fstype;
    tail >> fstype;
    if (fstype != "cgroup2") continue;
    std::istringstream head(line.substr(0, dash));
    std::vector<std::string> fields;
    for (std::string f; head >> f;) fields.push_back(f);
    if (fields.size() >= 5) return unescape(fields[4]);
  }
  return "";
}

std::unordered_map<uint64_t, std::string> cgroup_paths(const std::string& mount) {
  namespace fs = std::filesystem;
  std::unordered_map<uint64_t, std::string> out;
  struct stat st{};
  if (mount.empty() || ::stat(mount.c_str(), &st) != 0) return out;
  out[st.st_ino] = "/";
  std::error_code ec;
  fs::recursive_directory_iterator it(mount, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec) || it->is_symlink(ec)) continue;
    if (::stat(it->path().c_str(), &st) != 0) continue;
    out[st.st_ino] = "/" + fs::relative(it->path(), mount, ec).string();
  }
  return out;
}

std::unordered_map<uint64_t, std::string> cgroup_paths() {
  std::ifstream in("/proc/self/mountinfo");
  std::stringstream text;
  text << in.rdbuf();
  return cgroup_paths(cgroup2_mount(text.str()));
}

}  // namespace sonde::kernel
