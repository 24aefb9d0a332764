#include "fleet/agent.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "fleet/http_client.h"
#include "util/error.h"

namespace sonde::fleet {

namespace {

// A zombie (exited, not yet reaped by its parent) counts as gone.
bool alive(pid_t pid) {
  if (pid <= 0 || (::kill(pid, 0) != 0 && errno != EPERM)) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const size_t paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] != 'Z';
}

// Sleeps `d` in short steps so that `stop` ends it.
void pause_for(std::chrono::milliseconds d, const std::atomic<bool>& stop) {
  const auto end = std::chrono::steady_clock::now() + d;
  while (!stop && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(d, std::chrono::milliseconds(50)));
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::vector<std::string> rotated_files(const std::string& output) {
  const size_t slash = output.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : output.substr(0, slash);
  const std::string base = (slash == std::string::npos ? output : output.substr(slash + 1)) + ".";
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) throw_runtime("agent: cannot list {}: {}", dir, errno_text(errno));
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.starts_with(base) && all_digits(name.substr(base.size()))) out.push_back(dir + "/" + name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());  // perf's timestamps sort by time
  return out;
}

AgentTotals run_agent(const AgentOptions& o, const std::function<std::unique_ptr<Symbolizer>(const std::string&)>& symbolizer_for,
                      const std::atomic<bool>& stop, const std::function<void(const std::string&)>& log) {
  AgentTotals t;
  const ClickHouse ch(o.store, o.timeout);
  auto backoff = o.first_backoff;
  bool down = false;
  std::set<std::string> pushed;
  while (!stop) {
    const bool record_gone = !alive(o.record_pid);  // before listing: its last rename is done
    auto files = rotated_files(o.output);
    std::erase_if(files, [&](const std::string& f) { return pushed.count(f) > 0; });  // --keep's
    while (o.max_files && files.size() > o.max_files) {
      ::unlink(files.front().c_str());
      ++t.removed_unpushed;
      log(fmt::format("removed {} unpushed: more than {} files wait (--switch-max-files); its samples are lost",
                      files.front(), o.max_files));
      files.erase(files.begin());
    }
    if (files.empty()) {
      if (o.drain && record_gone) break;
      pause_for(o.poll, stop);
      continue;
    }
    const std::string& file = files.front();
    try {
      auto symbolizer = symbolizer_for(file);
      PushBatch batch = collect_rows(file, *symbolizer, o.push);
      PushResult r = push_rows(ch, batch, o.push);
      if (down) log(fmt::format("the store is back; {} files wait", files.size()));
      down = false;
      backoff = o.first_backoff;
      ++t.files, t.samples += r.samples, t.rows += r.rows, t.lost_samples += r.lost_samples;
      log(fmt::format("pushed {}: {} samples in {} rows{}", file, r.samples, r.rows,
                      r.lost_samples ? fmt::format(" ({} lost while recording)", r.lost_samples) : std::string()));
      if (o.keep) pushed.insert(file);
      else ::unlink(file.c_str());
    } catch (const StoreUnavailable& e) {
      ++t.retries;
      if (!down) log(fmt::format("the store is down ({}); {} files wait, retrying with back-off", e.what(), files.size()));
      down = true;
      pause_for(backoff, stop);
      backoff = std::min(backoff * 2, o.max_backoff);
    } catch (const Error& e) {
      ++t.failed;
      const std::string kept = file + ".failed";
      std::rename(file.c_str(), kept.c_str());
      log(fmt::format("{}: push failed for good ({}); kept as {}", file, e.what(), kept));
    }
  }
  return t;
}

}  // namespace sonde::fleet
