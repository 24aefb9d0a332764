#include "record/cpu_list.h"

#include <unistd.h>

#include <algorithm>
#include <string>

#include "util/cpu_set.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/parse_int.h"

namespace sonde::record {

std::vector<int> online_cpus() {
  std::vector<int> cpus;
  if (auto s = read_first_line("/sys/devices/system/cpu/online"); s && parse_cpu_set(*s, cpus)) return cpus;
  cpus.clear();
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  for (long i = 0; i < (n > 0 ? n : 1); ++i) cpus.push_back(static_cast<int>(i));
  return cpus;
}

std::vector<int> parse_cpu_list(std::string_view text) {
  std::vector<int> cpus;
  if (!parse_cpu_set(text, cpus)) throw_usage("invalid CPU list '{}' (expected e.g. 0,2-3)", text);
  auto online = online_cpus();
  for (int c : cpus)
    if (!std::binary_search(online.begin(), online.end(), c))
      throw_usage("CPU {} in '{}' is not online (online: {}-{})", c, text, online.front(), online.back());
  return cpus;
}

std::vector<pid_t> parse_pid_list(std::string_view opt, std::string_view text) {
  std::vector<pid_t> out;
  size_t pos = 0;
  for (;;) {
    size_t c = text.find(',', pos);
    std::string_view item = text.substr(pos, c == std::string_view::npos ? std::string_view::npos : c - pos);
    auto v = parse_uint<uint64_t>(item);
    if (!v) throw_usage("invalid {} '{}': expected a positive integer", opt, item);
    if (v.value == 0 || v.value > 0x3fffffff) throw_usage("invalid {} '{}': not a process id", opt, item);
    out.push_back(static_cast<pid_t>(v.value));
    if (c == std::string_view::npos) break;
    pos = c + 1;
  }
  return out;
}

}  // namespace sonde::record
