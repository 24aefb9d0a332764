// speedscope's file format (https://www.speedscope.app/file-format-schema.json):
// shared frames plus one "sampled" profile per (event, thread). Samples are
// the Profile's aggregates: one entry per distinct stack of a thread, in
// order of the stack's first occurrence, weighted by period for time events
// (unit nanoseconds) and by sample count otherwise (unit none).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "convert/convert.h"
#include "convert/frames.h"
#include "util/error.h"

namespace sonde::convert {

namespace {

std::string json_quote(std::string_view s) {
  // nlohmann's dump() escapes exactly as JSON requires; invalid UTF-8 in a
  // symbol name is replaced rather than failing the whole export.
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The document's start: its schema, name and the shared frame table.
void append_header_and_frames(const FrameTable& table, const SpeedscopeOptions& opts, std::string& buf) {
  buf += "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"sonde\",\"name\":";
  buf += json_quote(opts.name.empty() ? "sonde profile" : opts.name);
  buf += ",\"activeProfileIndex\":0,\"shared\":{\"frames\":[";
  const auto& frames = table.frames();
  for (size_t i = 0; i < frames.size(); ++i) {
    const auto& f = frames[i];
    if (i) buf += ',';
    buf += "{\"name\":";
    buf += json_quote(f.name);
    if (!f.file.empty()) buf += ",\"file\":" + json_quote(f.file);
    else if (!f.dso.empty()) buf += ",\"file\":" + json_quote(f.dso);  // where the frame lives, when no source is known
    buf += '}';
  }
  buf += "]},\"profiles\":[";
}

}  // namespace

void write_speedscope(const analysis::Profile& p, const SpeedscopeOptions& opts, std::ostream& out) {
  FrameTable table(p);
  std::string buf;
  buf.reserve(1 << 20);
  auto flush = [&] {
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    buf.clear();
  };
  auto it = std::back_inserter(buf);

  append_header_and_frames(table, opts, buf);

  // Threads in a stable order: by event, then pid, then tid.
  struct Thread {
    uint32_t comm = 0;
    std::vector<uint32_t> samples;  // Profile sample indices
  };
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Thread> threads;
  for (size_t i = 0; i < p.samples.size(); ++i) {
    const auto& s = p.samples[i];
    auto& t = threads[{s.event, s.pid, s.tid}];
    if (t.samples.empty()) t.comm = s.comm;
    t.samples.push_back(static_cast<uint32_t>(i));
  }

  bool first_profile = true;
  std::vector<uint32_t> stack;
  std::unordered_map<uint32_t, size_t> stack_index;
  std::vector<std::pair<uint32_t, uint64_t>> entries;  // (stack node, weight)
  std::vector<uint64_t> first_time;
  for (auto& [key, t] : threads) {
    auto [ev, pid, tid] = key;
    const auto& event = p.events[ev];
    const bool time = format::is_time(event.kind);
    // Merge the thread's aggregates that differ only by cpu.
    std::sort(t.samples.begin(), t.samples.end(),
              [&](uint32_t a, uint32_t b) { return p.samples[a].first_time < p.samples[b].first_time; });
    stack_index.clear();
    entries.clear();
    for (uint32_t si : t.samples) {
      const auto& s = p.samples[si];
      auto [pos, fresh] = stack_index.try_emplace(s.stack, entries.size());
      if (fresh) entries.emplace_back(s.stack, 0);
      entries[pos->second].second += time ? s.period : s.count;
    }
    uint64_t total = 0;
    for (const auto& e : entries) total += e.second;

    if (!first_profile) buf += ',';
    first_profile = false;
    buf += "{\"type\":\"sampled\",\"name\":";
    buf += json_quote(fmt::format("{} {}/{} ({})", p.str(t.comm), pid, tid, event.name));
    fmt::format_to(it, ",\"unit\":\"{}\",\"startValue\":0,\"endValue\":{},\"samples\":[", time ? "nanoseconds" : "none",
                   total);
    for (size_t i = 0; i < entries.size(); ++i) {
      if (i) buf += ',';
      buf += '[';
      if (entries[i].first != UINT32_MAX) {
        table.stack_frames(entries[i].first, stack);
        for (size_t j = 0; j < stack.size(); ++j) fmt::format_to(it, "{}{}", j ? "," : "", stack[j]);
      }
      buf += ']';
      if (buf.size() > (1 << 20)) flush();
    }
    buf += "],\"weights\":[";
    for (size_t i = 0; i < entries.size(); ++i) fmt::format_to(it, "{}{}", i ? "," : "", entries[i].second);
    buf += "]}";
    flush();
  }
  buf += "]}\n";
  flush();
  if (!out) throw_runtime("speedscope: cannot write the output");
}

}  // namespace sonde::convert
