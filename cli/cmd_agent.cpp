// sonde agent: pushes the files of a rotating `sonde record` to a fleet
// store as they close (docs/fleet.md).
#include <signal.h>

#include <atomic>
#include <cstdio>

#include "commands.h"
#include "fleet/agent.h"
#include "probe/sdt_format.h"
#include "reading_options.h"
#include "util/error.h"

namespace sonde::cli {

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop = true; }

struct AgentArgs {
  std::string output = "sonde.data", to, service = "default", host;
  std::vector<std::string> labels;
  size_t max_files = 0;
  int pid = 0;
  bool drain = false, keep = false;
  uint32_t bucket = 60, max_backoff = 60;
  SymbolArgs symbols;
};

void run_agent_command(const AgentArgs& a, int& exit_code) {
  if (a.to.empty()) throw_usage("agent: --to clickhouse://HOST:PORT/DB is required");
  fleet::AgentOptions o;
  o.store = fleet::parse_store_url(a.to);
  if (!o.store.params.empty()) throw_usage("agent: --to '{}': no query parameters when pushing", a.to);
  for (const auto& l : a.labels) o.push.labels.push_back(fleet::parse_label(l));
  if (a.bucket == 0) throw_usage("agent: --bucket must be at least 1 second");
  if (a.max_backoff == 0) throw_usage("agent: --max-backoff must be at least 1 second");
  o.output = a.output;
  o.push.service = a.service;
  o.push.host = a.host.empty() ? fleet::this_host_name() : a.host;
  o.push.bucket_seconds = a.bucket;
  o.push.attempts = 1;  // the agent's own back-off retries
  o.push.sdt_args = probe::sdt_extra_fields;  // SDT hits' arguments become labels
  o.max_files = a.max_files;
  o.record_pid = a.pid;
  o.drain = a.drain;
  o.keep = a.keep;
  o.max_backoff = std::chrono::seconds(a.max_backoff);
  if (o.first_backoff > o.max_backoff) o.first_backoff = o.max_backoff;
  ::signal(SIGINT, on_signal);
  ::signal(SIGTERM, on_signal);
  auto symbolizer_for = [&a](const std::string& file) { return std::make_unique<Symbolizer>(a.symbols.options(file)); };
  auto log = [](const std::string& line) {
    std::fprintf(stderr, "sonde agent: %s\n", line.c_str());
    std::fflush(stderr);
  };
  fleet::AgentTotals t = fleet::run_agent(o, symbolizer_for, g_stop, log);
  log(fmt::format("{} files pushed ({} samples in {} rows), {} failed and kept, {} removed unpushed, {} samples lost "
                  "while recording",
                  t.files, t.samples, t.rows, t.failed, t.removed_unpushed, t.lost_samples));
  if (t.failed || t.removed_unpushed) exit_code = 1;
}

}  // namespace

void register_agent(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<AgentArgs>();
  auto* cmd = app.add_subcommand("agent", "Push a rotating recording's files (record --switch-output) to a fleet store");
  cmd->add_option("-o,--output", a->output, "record's -o: pushes OUTPUT.<timestamp> files as they appear")
      ->capture_default_str();
  cmd->add_option("--to", a->to, "The store: clickhouse://HOST:PORT/DB");
  cmd->add_option("--service", a->service, "The service label")->capture_default_str();
  cmd->add_option("--host", a->host, "The host label (default: this machine's name)");
  cmd->add_option("--label", a->labels, "More labels, KEY=VALUE (repeatable)");
  cmd->add_option("--bucket", a->bucket, "Seconds per time bucket")->capture_default_str();
  cmd->add_option("--switch-max-files", a->max_files,
                  "At most this many files wait on disk; beyond, the oldest is removed and counted (0: no limit)");
  cmd->add_option("--pid", a->pid, "The recorder's pid: with --drain, stop once it has exited and every file is sent");
  cmd->add_flag("--drain", a->drain, "Stop when no file waits (and --pid has exited)");
  cmd->add_flag("--keep", a->keep, "Keep pushed files (default: remove them)");
  cmd->add_option("--max-backoff", a->max_backoff, "Longest wait between retries while the store is down, seconds")
      ->capture_default_str();
  a->symbols.add_to(cmd);
  cmd->callback([a, &exit_code] { run_agent_command(*a, exit_code); });
}

}  // namespace sonde::cli
