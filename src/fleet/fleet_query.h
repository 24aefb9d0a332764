// Readers over the store: the URL's parameters become a WHERE clause, the
// store aggregates per (event, thread, stack), and the rows become the same
// Profile that report, convert and diff print for a file.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/profile.h"
#include "fleet/clickhouse.h"
#include "fleet/store_url.h"

namespace sonde::fleet {

// host, service, build_id, recording, event, comm, label.KEY (globs * ?),
// since, until (30s, 15m, 2h, 7d before now_unix, or unix seconds); timeout
// is accepted and left out (request_timeout).
// Unknown parameters and malformed values are usage errors.
std::string where_clause(const StoreUrl& url, int64_t now_unix);
// The URL's timeout=SECONDS (default 30): how long a reader waits for each
// answer; a usage error unless 1..86400.
std::chrono::seconds request_timeout(const StoreUrl& url);
// "2h" -> now - 7200; "1733400000" -> itself.
int64_t parse_time_param(const std::string& key, const std::string& value, int64_t now_unix);
// A glob as an anchored RE2 pattern (what ClickHouse's match() takes).
std::string glob_to_regex(const std::string& glob);

// The Profile of the store's two answers, as TabSeparated rows: per
// aggregate (event, unit, sample_type, attr_index, comm, pid, tid, cpu,
// stack_id, count, period, first bucket), and per stack (stack_id, frames
// joined by kFrameSep). Malformed rows and frames are skipped (frames are
// counted in the Profile's notes); nothing in them is trusted as an index.
analysis::Profile profile_from_answers(const std::vector<std::vector<std::string>>& samples,
                                       const std::vector<std::vector<std::string>>& stacks);

// A reader's store: its URL, the connection (the URL's timeout), and the
// rows its parameters select, as "DB.sonde_samples FINAL WHERE ...".
struct StoreQuery {
  StoreUrl url;
  ClickHouse ch;
  std::string samples;
};
// Parses the URL and its parameters (usage errors); nothing is sent yet.
StoreQuery open_store_query(const std::string& url_text);
// The stacks (stack_id, frames joined by kFrameSep) of the selected rows.
std::vector<std::vector<std::string>> fetch_stacks(const StoreQuery& q);

// Runs the queries and assembles the Profile. Throws runtime errors for a
// store that is down or rejects them.
analysis::Profile load_fleet_profile(const std::string& url_text);

}  // namespace sonde::fleet
