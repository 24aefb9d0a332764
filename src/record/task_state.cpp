#include "record/task_state.h"

#include <sys/stat.h>

#include <string>
#include <string_view>

#include "util/fields.h"
#include "util/fs.h"
#include "util/parse_int.h"

namespace sonde::record {

bool process_exists(pid_t pid) {
  struct stat st{};
  return pid > 0 && ::stat(("/proc/" + std::to_string(pid)).c_str(), &st) == 0;
}

bool task_alive(pid_t tid) {
  auto stat = read_small_file("/proc/" + std::to_string(tid) + "/stat");
  if (!stat) return false;
  size_t paren = stat->rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat->size()) return false;
  char state = (*stat)[paren + 2];
  return state != 'Z' && state != 'X';
}

pid_t tgid_of(pid_t tid) {
  auto s = read_small_file("/proc/" + std::to_string(tid) + "/status");
  if (!s) return tid;
  auto at = s->find("\nTgid:");
  if (at == std::string::npos) return tid;
  std::string_view rest = std::string_view(*s).substr(at + 6);
  rest = rest.substr(0, rest.find('\n'));
  auto tgid = parse_int<pid_t>(next_field(rest), 1);
  return tgid ? tgid.value : tid;
}

}  // namespace sonde::record
