#include "probe/uprobe_events.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <unistd.h>

#include <cerrno>
#include <set>

#include "record/tracing_data.h"
#include "util/error.h"
#include "util/fs.h"

namespace sonde::probe {
namespace {

std::string events_path() { return record::tracefs_root() + "/uprobe_events"; }

// One write(2) per line, as the kernel parses one command per write.
int write_line(const std::string& line) {
  int fd = open(events_path().c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return errno;
  std::string data = line + "\n";
  ssize_t n = write(fd, data.data(), data.size());
  int err = n == static_cast<ssize_t>(data.size()) ? 0 : (n < 0 ? errno : EIO);
  close(fd);
  return err;
}

std::string free_name(const std::string& group, const std::string& event, const std::set<std::string>& taken) {
  for (int i = 1; i < 10000; ++i) {
    std::string candidate = event + "_" + std::to_string(i);
    if (!taken.count(group + ":" + candidate)) return candidate;
  }
  throw_runtime("probe: no free event name for {}:{}", group, event);
}

}  // namespace

std::vector<TraceProbe> list_uprobe_events() {
  auto text = read_small_file(events_path());
  if (!text) throw_runtime("probe: cannot read {}: {}", events_path(), errno_text(errno));
  std::vector<TraceProbe> out;
  size_t pos = 0;
  while (pos < text->size()) {
    size_t nl = text->find('\n', pos);
    if (nl == std::string::npos) nl = text->size();
    if (auto p = parse_uprobe_event_line(text->substr(pos, nl - pos))) out.push_back(std::move(*p));
    pos = nl + 1;
  }
  return out;
}

bool remove_uprobe_event(const std::string& group, const std::string& event) {
  return write_line("-:" + group + "/" + event) == 0;
}

std::vector<TraceProbe> add_uprobe_events(std::vector<TraceProbe> probes, bool force) {
  std::set<std::string> taken;
  for (const auto& p : list_uprobe_events()) taken.insert(p.group + ":" + p.event);
  std::set<std::string> renamed;  // events of this call (several sites share one)
  for (auto& p : probes) {
    std::string full = p.group + ":" + p.event;
    if (renamed.count(full) || !taken.count(full)) {
      renamed.insert(full);
      continue;
    }
    if (!force)
      throw_usage("probe: event {} already exists (sonde probe -d {} removes it; -f adds {}_1)", full, full, p.event);
    std::string fresh = free_name(p.group, p.event, taken);
    for (auto& q : probes)
      if (q.group == p.group && q.event == p.event) q.event = fresh;
    renamed.insert(p.group + ":" + fresh);
  }
  std::set<std::pair<std::string, std::string>> added;
  for (const auto& p : probes) {
    if (int err = write_line(p.definition())) {
      for (const auto& [g, e] : added) remove_uprobe_event(g, e);
      throw_runtime("probe: the kernel refused '{}': {}", p.definition(), errno_text(err));
    }
    added.insert({p.group, p.event});
  }
  return probes;
}

std::vector<std::string> delete_uprobe_events(const std::vector<std::string>& globs) {
  auto events = list_uprobe_events();
  std::vector<std::string> removed;
  std::set<std::string> done;
  for (const auto& glob : globs) {
    size_t colon = glob.find(':');
    std::string gg = colon == std::string::npos ? "*" : glob.substr(0, colon);
    std::string eg = colon == std::string::npos ? glob : glob.substr(colon + 1);
    bool matched = false;
    for (const auto& p : events) {
      if (fnmatch(gg.c_str(), p.group.c_str(), 0) != 0 || fnmatch(eg.c_str(), p.event.c_str(), 0) != 0) continue;
      matched = true;
      std::string full = p.group + ":" + p.event;
      if (!done.insert(full).second) continue;
      if (int err = write_line("-:" + p.group + "/" + p.event))
        throw_runtime("probe: cannot remove {}: {}", full, errno_text(err));
      removed.push_back(full);
    }
    if (!matched) throw_usage("probe: no uprobe event matches '{}'", glob);
  }
  return removed;
}

}  // namespace sonde::probe
