#include "record/event_list_json.h"

#include <nlohmann/json.hpp>

namespace sonde::record {

namespace {

// perf's topics for the event types sonde lists.
std::string topic_of(const std::string& kind) {
  if (kind == "Hardware event") return "legacy hardware";
  if (kind == "Software event") return "software";
  if (kind == "Tracepoint event") return "tracepoint";
  if (kind == "SDT event") return "sdt";
  return "other";
}

}  // namespace

std::string events_json(const std::vector<ListedEvent>& events) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& e : events) {
    nlohmann::ordered_json j;
    j["Topic"] = topic_of(e.kind);
    // "context-switches OR cs": the name, then its alias, as perf splits them.
    size_t alias = e.name.find(" OR ");
    j["EventName"] = e.name.substr(0, alias);
    if (alias != std::string::npos) j["EventAlias"] = e.name.substr(alias + 4);
    j["EventType"] = e.kind;
    if (!e.note.empty()) j["BriefDescription"] = e.note;
    out.push_back(std::move(j));
  }
  return out.dump(8) + "\n";
}

}  // namespace sonde::record
