// sonde push: a recording's profile into a fleet store (docs/fleet.md).
#include <unistd.h>

#include <cstdio>

#include "commands.h"
#include "fleet/push.h"
#include "fleet/store_url.h"
#include "probe/sdt_format.h"
#include "reading_options.h"
#include "util/error.h"

namespace sonde::cli {

namespace {

struct PushArgs {
  std::string input, to;
  fleet::PushOptions o;
  std::vector<std::string> labels;
  std::optional<int64_t> start;
  uint32_t timeout_s = 30;
  SymbolArgs symbols;
};

void run_push(PushArgs& a) {
  if (a.to.empty()) throw_usage("push: --to clickhouse://HOST:PORT/DB is required");
  const fleet::StoreUrl url = fleet::parse_store_url(a.to);
  if (!url.params.empty()) throw_usage("push: --to '{}': no query parameters when pushing", a.to);
  for (const auto& l : a.labels) a.o.labels.push_back(fleet::parse_label(l));
  if (a.o.bucket_seconds == 0) throw_usage("push: --bucket must be at least 1 second");
  if (a.o.batch_rows == 0) throw_usage("push: --batch-rows must be at least 1");
  if (a.o.attempts < 1) throw_usage("push: --attempts must be at least 1");
  if (a.o.service.empty()) throw_usage("push: --service must not be empty");
  if (a.o.host.empty()) a.o.host = fleet::this_host_name();
  a.o.start_unix = a.start;
  a.o.sdt_args = probe::sdt_extra_fields;  // SDT hits' arguments become labels
  const std::string input = a.input.empty() ? default_recording() : a.input;
  if (fleet::is_store_url(input)) throw_usage("push: -i must be a recording, not a store");
  Symbolizer symbolizer(a.symbols.options(input));
  fleet::PushBatch batch = fleet::collect_rows(input, symbolizer, a.o);
  const fleet::ClickHouse ch(url, std::chrono::seconds(a.timeout_s));
  fleet::PushResult r = fleet::push_rows(ch, batch, a.o);
  std::fprintf(stderr,
               "sonde push: %s (recording %s): %llu samples in %llu rows, %llu stacks, %llu batches, %llu bytes to "
               "%s:%u/%s\n",
               input.c_str(), r.recording_id.c_str(), (unsigned long long)r.samples, (unsigned long long)r.rows,
               (unsigned long long)r.stacks, (unsigned long long)r.batches, (unsigned long long)r.bytes,
               url.host.c_str(), unsigned(url.port), url.database.c_str());
  if (r.lost_samples)
    std::fprintf(stderr, "sonde push: the recording lost %llu samples while recording (stored in sonde_recordings)\n",
                 (unsigned long long)r.lost_samples);
}

}  // namespace

void register_push(CLI::App& app, int& /*exit_code*/) {
  auto a = std::make_shared<PushArgs>();
  auto* cmd = app.add_subcommand("push", "Send a recording's profile to a fleet store (ClickHouse)");
  cmd->add_option("-i,--input", a->input, kInputHelp);
  cmd->add_option("--to", a->to, "The store: clickhouse://HOST:PORT/DB (ClickHouse's HTTP port)");
  cmd->add_option("--service", a->o.service, "The service label of every row")->capture_default_str();
  cmd->add_option("--host", a->o.host, "The host label (default: this machine's name)");
  cmd->add_option("--label", a->labels, "More labels, KEY=VALUE (repeatable)");
  cmd->add_option("--bucket", a->o.bucket_seconds, "Seconds per time bucket")->capture_default_str();
  cmd->add_option("--start", a->start,
                  "Unix second of the first sample (default: from this boot's clock; for recordings from elsewhere)");
  cmd->add_option("--batch-rows", a->o.batch_rows, "Sample rows per INSERT")->capture_default_str();
  cmd->add_option("--attempts", a->o.attempts, "Tries per batch, with doubling back-off")->capture_default_str();
  cmd->add_option("--timeout", a->timeout_s, "Seconds to wait for the store per request")->capture_default_str();
  a->symbols.add_to(cmd);
  cmd->callback([a] { run_push(*a); });
}

}  // namespace sonde::cli
