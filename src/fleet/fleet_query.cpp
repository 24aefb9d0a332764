#include "fleet/fleet_query.h"

#include <time.h>

#include <cctype>
#include <cerrno>

#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "fleet/clickhouse.h"
#include "fleet/stack_codec.h"
#include "format/event_kind.h"
#include "util/error.h"

namespace sonde::fleet {

namespace {


std::string condition(const std::string& column, const std::string& value) {
  if (value.find_first_of("*?") == std::string::npos) return column + " = " + ClickHouse::quote(value);
  return "match(" + column + ", " + ClickHouse::quote(glob_to_regex(value)) + ")";
}

uint64_t number(const std::string& s) { return std::strtoull(s.c_str(), nullptr, 10); }

// Store rows (event, unit, sample_type, attr_index, comm, pid, tid, cpu,
// stack, count, period, first bucket[, kind]) into the profile's events and
// samples. The kind is the stored one; rows pushed before the store had the
// column (an empty kind, or no 13th column) get it from name and unit.
format::EventKind stored_kind(const std::vector<std::string>& r) {
  if (r.size() > 12)
    if (auto k = format::kind_by_name(r[12])) return *k;
  return format::classify_stored_event(r[0], r[1]);
}

void add_samples(analysis::Profile& p, const std::vector<std::vector<std::string>>& rows,
                 const std::map<uint64_t, uint32_t>& leaf_of) {
  std::map<std::string, uint32_t> event_of;
  std::vector<std::pair<uint32_t, std::string>> order;  // (attr_index, name)
  for (const auto& r : rows)
    if (r.size() >= 12 && !event_of.count(r[0])) event_of[r[0]] = 0, order.emplace_back(uint32_t(number(r[3])), r[0]);
  std::sort(order.begin(), order.end());
  for (const auto& [attr, name] : order) {
    event_of[name] = uint32_t(p.events.size());
    analysis::ProfileEvent e;
    e.name = name;
    e.attr_index = attr;
    p.events.push_back(e);
  }
  for (const auto& r : rows) {
    if (r.size() < 12) continue;
    analysis::ProfileSample s;
    s.event = event_of[r[0]];
    auto& e = p.events[s.event];
    e.kind = stored_kind(r), e.sample_type = number(r[2]);
    s.comm = p.intern(r[4]);
    s.pid = uint32_t(number(r[5])), s.tid = uint32_t(number(r[6])), s.cpu = uint32_t(number(r[7]));
    auto leaf = leaf_of.find(number(r[8]));
    s.stack = leaf == leaf_of.end() ? UINT32_MAX : leaf->second;
    s.count = number(r[9]), s.period = number(r[10]);
    s.first_time = number(r[11]) * 1000000000ull;
    e.samples += s.count, e.period += s.period;
    p.thread_comms.emplace(s.tid, s.comm);
    p.samples.push_back(s);
  }
}

}  // namespace

std::string glob_to_regex(const std::string& glob) {
  std::string re = "^";
  for (char c : glob) {
    if (c == '*') re += ".*";
    else if (c == '?') re += '.';
    else if (std::string_view("\\.^$|()[]{}+").find(c) != std::string_view::npos) re += '\\', re += c;
    else re += c;
  }
  return re + "$";
}

int64_t parse_time_param(const std::string& key, const std::string& value, int64_t now_unix) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  // Unix seconds fit ClickHouse's DateTime (32 bits); so does any duration
  // that counts back from now, which also keeps v * unit from overflowing.
  if (value.empty() || !std::isdigit(static_cast<unsigned char>(value[0])) || errno == ERANGE || v > UINT32_MAX)
    throw_usage("store URL: {}='{}' is not a duration (30s, 15m, 2h, 7d) or unix seconds", key, value);
  const std::string unit = end;
  if (unit.empty()) return v;
  const std::map<std::string, int64_t> seconds = {{"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}};
  auto it = seconds.find(unit);
  if (it == seconds.end())
    throw_usage("store URL: {}='{}' is not a duration (30s, 15m, 2h, 7d) or unix seconds", key, value);
  if (v > now_unix / it->second)
    throw_usage("store URL: {}='{}' reaches back before 1970", key, value);
  return now_unix - v * it->second;
}

std::string where_clause(const StoreUrl& url, int64_t now_unix) {
  static const std::map<std::string, std::string> columns = {{"host", "host"},       {"service", "service"},
                                                             {"build_id", "build_id"}, {"recording", "recording_id"},
                                                             {"event", "event"},     {"comm", "comm"}};
  std::string where = "1";
  for (const auto& [key, value] : url.params) {
    if (auto c = columns.find(key); c != columns.end()) {
      where += " AND " + condition(c->second, value);
    } else if (key == "since" || key == "until") {
      where += fmt::format(" AND bucket {} toDateTime({})", key == "since" ? ">=" : "<",
                           parse_time_param(key, value, now_unix));
    } else if (key == "timeout") {
      continue;  // not a condition: how long to wait for the store (request_timeout)
    } else if (key.starts_with("label.") && key.size() > 6) {
      where += " AND " + condition("label_values[indexOf(label_keys, " + ClickHouse::quote(key.substr(6)) + ")]", value);
    } else {
      throw_usage("store URL: unknown parameter '{}' (host, service, since, until, build_id, recording, event, comm, "
                  "label.KEY, timeout)",
                  key);
    }
  }
  return where;
}

std::chrono::seconds request_timeout(const StoreUrl& url) {
  auto it = url.params.find("timeout");
  if (it == url.params.end()) return std::chrono::seconds(30);
  char* end = nullptr;
  const unsigned long v = std::strtoul(it->second.c_str(), &end, 10);
  if (it->second.empty() || !std::isdigit(static_cast<unsigned char>(it->second[0])) || *end || v == 0 || v > 86400)
    throw_usage("store URL: timeout='{}' is not 1..86400 seconds", it->second);
  return std::chrono::seconds(v);
}

StoreQuery open_store_query(const std::string& url_text) {
  StoreUrl url = parse_store_url(url_text);
  const std::string where = where_clause(url, int64_t(::time(nullptr)));
  const std::string samples = url.database + ".sonde_samples FINAL WHERE " + where;
  const ClickHouse ch(url, request_timeout(url));
  return StoreQuery{std::move(url), ch, samples};
}

std::vector<std::vector<std::string>> fetch_stacks(const StoreQuery& q) {
  return q.ch.rows("SELECT stack_id, arrayStringConcat(any(frames), '\\x1e') FROM " + q.url.database +
                   ".sonde_stacks WHERE stack_id IN (SELECT stack_id FROM " + q.samples + ") GROUP BY stack_id");
}

analysis::Profile load_fleet_profile(const std::string& url_text) {
  const StoreQuery q = open_store_query(url_text);
  auto rows = q.ch.rows(
      "SELECT event, any(event_unit), any(sample_type), min(attr_index), comm, pid, tid, any(cpu), stack_id, "
      "sum(count), sum(period), toUInt32(min(bucket)), any(event_kind) FROM " +
      q.samples + " GROUP BY event, comm, pid, tid, stack_id");
  analysis::Profile p = profile_from_answers(rows, fetch_stacks(q));
  p.hostname = q.url.host;
  return p;
}

analysis::Profile profile_from_answers(const std::vector<std::vector<std::string>>& rows,
                                       const std::vector<std::vector<std::string>>& stacks) {
  analysis::Profile p;
  StackDecoder decoder(p);
  std::map<uint64_t, uint32_t> leaf_of;
  for (const auto& s : stacks) {
    if (s.size() < 2) continue;
    leaf_of[number(s[0])] = s[1].empty() ? UINT32_MAX : decoder.add_stack(split(s[1], kFrameSep));
  }
  add_samples(p, rows, leaf_of);
  if (decoder.bad_frames())
    p.notes.push_back(std::to_string(decoder.bad_frames()) + " frames in the store were malformed and skipped");
  return p;
}

}  // namespace sonde::fleet
