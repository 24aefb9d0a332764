// `sonde list -j`: the listed events as perf list --json writes them (newer
// perf; 6.1 has no -j): one JSON array of objects with perf's keys.
#pragma once

#include <string>
#include <vector>

#include "record/event_list.h"

namespace sonde::record {

// [{"Topic": "software", "EventName": "context-switches", "EventAlias": "cs",
//   "EventType": "Software event", "BriefDescription": ...}, ...]; an alias
// and a description only when there is one. Ends with a newline.
std::string events_json(const std::vector<ListedEvent>& events);

}  // namespace sonde::record
