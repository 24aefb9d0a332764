// sonde push: a recording symbolized here (where its binaries and build-ids
// are), aggregated per (time bucket, event, thread, stack), and written to
// the store: each distinct stack once, then the sample rows in batches.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fleet/clickhouse.h"
#include "fleet/hit_args.h"
#include "symbol/symbolizer.h"

namespace sonde::fleet {

struct PushOptions {
  std::string service = "default";
  std::string host;  // default: this machine's name
  std::vector<std::pair<std::string, std::string>> labels;
  uint32_t bucket_seconds = 60;
  // Wall-clock second of the recording's first sample; default: the
  // sample times (this boot's clock) plus the realtime-monotonic offset now.
  std::optional<int64_t> start_unix;
  size_t batch_rows = 50000;
  int attempts = 3;  // per batch, with doubling back-off
  std::chrono::milliseconds first_backoff{500};
  // Decodes SDT hits' arguments into labels (probe::sdt_extra_fields,
  // passed by the CLI); empty: SDT hits carry no argument labels.
  SdtArgsText sdt_args;
};

// One aggregate row of sonde_samples.
struct SampleRow {
  uint32_t bucket = 0;  // unix seconds, a multiple of bucket_seconds
  std::string build_id, event, event_unit, comm;
  std::string_view event_kind;  // format::kind_name of the event's kind
  uint64_t sample_type = 0;
  uint32_t attr_index = 0, pid = 0, tid = 0, cpu = 0;
  uint64_t stack_id = 0, count = 0, period = 0;
  uint32_t args = 0;  // a probe hit's argument labels: PushBatch::args index (0: none)
};

struct PushBatch {
  std::string recording_id;
  std::vector<SampleRow> rows;
  std::map<uint64_t, std::vector<std::string>> stacks;
  std::vector<Labels> args;  // by SampleRow::args; [0] is empty
  uint64_t samples = 0, lost_samples = 0;
};

struct PushResult {
  std::string recording_id;
  uint64_t rows = 0, samples = 0, stacks = 0, batches = 0, bytes = 0, lost_samples = 0;
};

// This machine's name (the default host label).
std::string this_host_name();
// "k=v" -> (k, v); a usage error otherwise.
std::pair<std::string, std::string> parse_label(const std::string& text);
// A recording's identity: a hash of its bytes (of its path for a directory).
std::string recording_id_of(const std::string& input);
// Reads and symbolizes `input` into rows.
PushBatch collect_rows(const std::string& input, Symbolizer& symbolizer, const PushOptions& o);
// Writes them; a batch that fails `attempts` times throws a runtime error
// saying how many rows were stored and that pushing again is safe.
PushResult push_rows(const ClickHouse& ch, const PushBatch& batch, const PushOptions& o);

}  // namespace sonde::fleet
