// `sonde script` over the store: the stored rows themselves, one entry per
// (time bucket, host, event, thread, cpu, stack, labels), in perf script's
// layout. The store keeps aggregates, not each sample: an entry's time is its
// bucket's start, its period the sum of its samples', and after the event
// come how many samples it holds, the host and the labels (docs/fleet.md).
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "analysis/profile.h"

namespace sonde::fleet {

struct StoreListing {
  // One sample per stored row (first_time: the bucket's start, in ns).
  analysis::Profile profile;
  // By sample: "samples=N host=H KEY=VALUE...".
  std::vector<std::string> extras;
};

// The listing query's TabSeparated rows (the readers' twelve aggregate
// columns, then host and the labels as "k=v k=v") and the stacks' answer.
// Rows with too few columns are skipped; nothing in them is trusted as an index.
StoreListing listing_from_answers(const std::vector<std::vector<std::string>>& rows,
                                  const std::vector<std::vector<std::string>>& stacks);

// Runs the listing's queries (ordered by bucket, host, pid, tid, event).
StoreListing load_store_listing(const std::string& url_text);

// Writes the entries: "COMM PID/TID [CPU] SECS.000000: PERIOD EVENT: samples=N
// host=H k=v", then the frames leaf first ("\t ADDR SYM+OFF (DSO)", at most
// max_stack, 0: all) and an empty line; with hide_callchain only the line.
void print_store_listing(const StoreListing& l, size_t max_stack, bool hide_callchain, std::FILE* out);

}  // namespace sonde::fleet
