// The store's tables (docs/fleet.md). SQL that runs on ClickHouse 18.16
// (Debian 12) and on current releases: no codecs, no Map, no LowCardinality.
//
// sonde_stacks: one row per distinct stack, keyed by its content hash;
// sonde_samples: aggregates per (recording, time bucket, host, service,
// event, thread, stack), each with its event's kind (format::kind_name;
// "" in rows pushed before the column existed). Both are ReplacingMergeTree over their whole key,
// and readers use FINAL: pushing a recording again writes rows with the same
// keys, which replace (not add to) the first push's.
#pragma once

#include <string>

namespace sonde::fleet {

class ClickHouse;

inline constexpr const char* kSampleColumns =
    "recording_id, bucket, host, service, build_id, label_keys, label_values, event, event_unit, sample_type, "
    "attr_index, comm, pid, tid, cpu, stack_id, args_id, count, period, event_kind";

// CREATE DATABASE / TABLE IF NOT EXISTS, then the migrations a store made
// by an older sonde needs (sonde_samples.event_kind, added with an ALTER
// when system.columns lacks it: ClickHouse 18.16 has no ADD COLUMN IF NOT
// EXISTS). Safe to run before every push.
void create_schema(const ClickHouse& ch);

}  // namespace sonde::fleet
