#include "stat/thread_counts.h"

#include <fmt/format.h>

#include <algorithm>

#include "format/records.h"

namespace sonde::stat {

namespace {

// The event a READ record belongs to: its sample_id trailer's id, else the
// read values' id, else the only event (perf's evlist__id2evsel).
const format::EventInfo* read_event(const format::RecordView& rec, const format::Session& session) {
  const auto& events = session.events();
  if (events.empty()) return nullptr;
  format::SampleId sid;
  if (session.decode_sample_id(rec, sid) && sid.id != 0)
    if (const auto* ev = session.event_for_id(sid.id)) return ev;
  for (const auto& ev : events)
    if (auto v = format::ReadView::parse(rec.bytes, ev.attr.read_format); v && v->id)
      if (const auto* by_id = session.event_for_id(*v->id)) return by_id;
  return events.size() == 1 ? &events[0] : nullptr;
}

size_t digits(uint64_t v) { return fmt::formatted_size("{}", v); }

}  // namespace

size_t ThreadCounts::column(const format::EventInfo& ev) {
  for (size_t i = 0; i < stream_index_.size(); ++i)
    if (stream_index_[i] == ev.index) return i;
  stream_index_.push_back(ev.index);
  CounterEvent& c = columns_.emplace_back();
  c.name = ev.name;
  c.attr = ev.attr;
  return columns_.size() - 1;
}

size_t ThreadCounts::row(uint32_t pid, uint32_t tid) {
  auto [it, added] = row_of_.try_emplace(uint64_t{pid} << 32 | tid, rows_.size());
  if (added) {
    rows_.emplace_back(pid, tid);
    sums_.emplace_back();
  }
  return it->second;
}

bool ThreadCounts::add(const format::RecordView& rec, const format::Session& session) {
  if (rec.header.type != format::kRead) return false;
  const format::EventInfo* ev = read_event(rec, session);
  if (!ev) return false;
  auto v = format::ReadView::parse(rec.bytes, ev->attr.read_format);
  if (!v) return false;
  const size_t e = column(*ev);
  std::vector<CountValue>& sums = sums_[row(v->pid, v->tid)];
  if (sums.size() <= e) sums.resize(e + 1);
  sums[e].val += v->value, sums[e].ena += v->enabled, sums[e].run += v->running;
  return true;
}

CountTable ThreadCounts::table() const {
  CountTable t;
  t.events = columns_;
  t.threads.clear();
  for (auto [pid, tid] : rows_) t.threads.push_back({static_cast<int>(pid), "", static_cast<int>(tid)});
  t.reset_values();
  for (size_t r = 0; r < sums_.size(); ++r)
    for (size_t e = 0; e < sums_[r].size(); ++e) t.at(e, 0, r) = sums_[r][e];
  return t;
}

namespace {

// perf's perf_read_values__display_pretty.
std::string pretty(const CountTable& t) {
  size_t pidw = 3, tidw = 3;
  std::vector<size_t> w;
  for (const auto& e : t.events) w.push_back(e.name.size());
  for (size_t i = 0; i < t.threads.size(); ++i) {
    pidw = std::max(pidw, fmt::formatted_size("{}", t.threads[i].pid));
    tidw = std::max(tidw, fmt::formatted_size("{}", t.threads[i].tid));
    for (size_t j = 0; j < t.events.size(); ++j) w[j] = std::max(w[j], digits(t.at(j, 0, i).val));
  }
  std::string out = fmt::format("# {:>{}}  {:>{}}", "PID", pidw, "TID", tidw);
  for (size_t j = 0; j < t.events.size(); ++j) out += fmt::format("  {:>{}}", t.events[j].name, w[j]);
  out += '\n';
  for (size_t i = 0; i < t.threads.size(); ++i) {
    out += fmt::format("  {:>{}}  {:>{}}", t.threads[i].pid, pidw, t.threads[i].tid, tidw);
    for (size_t j = 0; j < t.events.size(); ++j) out += fmt::format("  {:>{}}", t.at(j, 0, i).val, w[j]);
    out += '\n';
  }
  return out;
}

// perf's perf_read_values__display_raw: its rows carry no line ends (as perf
// 6.1 prints them).
std::string raw_table(const CountTable& t, const std::vector<size_t>& raw_ids) {
  size_t pidw = 3, tidw = 3, namew = 4, raww = 3, countw = 5;
  for (const auto& th : t.threads) {
    pidw = std::max(pidw, fmt::formatted_size("{}", th.pid));
    tidw = std::max(tidw, fmt::formatted_size("{}", th.tid));
  }
  for (size_t j = 0; j < t.events.size(); ++j) {
    namew = std::max(namew, t.events[j].name.size());
    raww = std::max(raww, fmt::formatted_size("{:x}", raw_ids[j]));
  }
  for (size_t i = 0; i < t.threads.size(); ++i)
    for (size_t j = 0; j < t.events.size(); ++j) countw = std::max(countw, digits(t.at(j, 0, i).val));
  std::string out = fmt::format("# {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}\n", "PID", pidw, "TID", tidw, "Name", namew,
                                "Raw", raww, "Count", countw);
  for (size_t i = 0; i < t.threads.size(); ++i)
    for (size_t j = 0; j < t.events.size(); ++j)
      out += fmt::format("  {:>{}}  {:>{}}  {:>{}}  {:>{}x}  {:>{}}", t.threads[i].pid, pidw, t.threads[i].tid, tidw,
                         t.events[j].name, namew, raw_ids[j], raww, t.at(j, 0, i).val, countw);
  return out;
}

}  // namespace

std::string format_thread_counts(const ThreadCounts& counts, bool raw) {
  const CountTable t = counts.table();
  return raw ? raw_table(t, counts.stream_indexes()) : pretty(t);
}

}  // namespace sonde::stat
