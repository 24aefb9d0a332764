#include "probe/probe_test_env.h"

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <regex>

#include "probe/uprobe_events.h"

namespace sonde::test {

ProbeFixture::ProbeFixture(const TempDir& dir, const std::string& flags, const std::string& source) {
  static std::atomic<int> counter{0};
  std::string name = "pa" + std::to_string(getpid()) + "x" + std::to_string(counter++);
  path_ = dir / name;
  group_ = "probe_" + name;
  ok_ = compile_fixture(source, path_, flags);
}

ProbeFixture::~ProbeFixture() { delete_events(); }

void ProbeFixture::delete_events() const {
  for (const auto& p : probe::list_uprobe_events())
    if (p.group == group_) probe::remove_uprobe_event(p.group, p.event);
}

std::vector<std::string> ProbeFixture::events() const {
  std::ifstream in("/sys/kernel/tracing/uprobe_events");
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line))
    if (line.find(":" + group_ + "/") == 1) out.push_back(line);
  return out;
}

int ProbeFixture::source_line(const std::string& marker) {
  std::ifstream in(fixtures_dir() + "/probe_args.c");
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  return 0;
}

std::string without_perf_suffixes(std::string text) {
  // perf names a numbered return probe NAME_N, without its __return.
  static const std::regex suffix(R"((:[A-Za-z0-9_]+/[A-Za-z0-9_]+?)_[0-9]+( |$))");
  std::string out;
  for (const auto& line : lines(text)) {
    if (!line.starts_with("r:") || line.find("__return ") != std::string::npos)
      out += std::regex_replace(line, suffix, "$1$2");
    else
      out += std::regex_replace(line, suffix, "$1__return$2");
    out += "\n";
  }
  if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
  return out;
}

RunResult sonde_probe(const std::string& args) { return sh(quoted(sonde_bin()) + " probe " + args); }
RunResult perf_probe(const std::string& args) { return sh("perf probe " + args); }

}  // namespace sonde::test
