#include "fleet/schema.h"

#include "fleet/clickhouse.h"

namespace sonde::fleet {

namespace {

// A store created before event_kind existed gets it, empty in its old rows
// (readers then classify those by name and unit).
void add_event_kind_column(const ClickHouse& ch, const std::string& db) {
  const std::string present = ch.execute("SELECT count() FROM system.columns WHERE database = " + ClickHouse::quote(db) +
                                         " AND table = 'sonde_samples' AND name = 'event_kind'");
  if (present.starts_with("0"))
    ch.execute("ALTER TABLE " + db + ".sonde_samples ADD COLUMN event_kind String DEFAULT ''");
}

}  // namespace

void create_schema(const ClickHouse& ch) {
  const std::string db = ch.url().database;
  ch.execute("CREATE DATABASE IF NOT EXISTS " + db);
  ch.execute("CREATE TABLE IF NOT EXISTS " + db +
             ".sonde_stacks (stack_id UInt64, frames Array(String)) "
             "ENGINE = ReplacingMergeTree() ORDER BY stack_id");
  ch.execute("CREATE TABLE IF NOT EXISTS " + db +
             ".sonde_samples (recording_id String, bucket DateTime, host String, service String, build_id String, "
             "label_keys Array(String), label_values Array(String), event String, event_unit String, "
             "sample_type UInt64, attr_index UInt32, comm String, pid UInt32, tid UInt32, cpu UInt32, "
             "stack_id UInt64, args_id UInt64, count UInt64, period UInt64, event_kind String DEFAULT '') "
             "ENGINE = ReplacingMergeTree() PARTITION BY toYYYYMM(bucket) "
             "ORDER BY (service, host, bucket, recording_id, event, comm, pid, tid, cpu, stack_id, args_id)");
  add_event_kind_column(ch, db);
  // What each push stored, for `sonde push` to compare and for totals.
  ch.execute("CREATE TABLE IF NOT EXISTS " + db +
             ".sonde_recordings (recording_id String, host String, service String, pushed_at DateTime, "
             "rows UInt64, samples UInt64, lost_samples UInt64) "
             "ENGINE = ReplacingMergeTree(pushed_at) ORDER BY recording_id");
}

}  // namespace sonde::fleet
