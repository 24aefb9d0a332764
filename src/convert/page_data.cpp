#include "convert/page_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "convert/frames.h"
#include "format/offcpu_event.h"

namespace sonde::convert {

namespace {

std::string json_str(std::string_view s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

template <typename T>
void append_column(std::string& out, std::string_view name, const std::vector<T>& v) {
  out += fmt::format(",\"{}\":\"", name);
  out += base64(v.data(), v.size() * sizeof(T));
  out += '"';
}

template <typename T>
void append_numbers(std::string& out, std::string_view name, const std::vector<T>& v) {
  out += fmt::format(",\"{}\":[{}]", name, fmt::join(v, ","));
}

struct Key3 {
  uint32_t a, b, c;
  bool operator==(const Key3&) const = default;
};
struct Key3Hash {
  size_t operator()(const Key3& k) const {
    uint64_t h = (uint64_t(k.a) << 32 | k.b) * 0x9E3779B97F4A7C15ULL;
    return static_cast<size_t>((h ^ (h >> 29)) + k.c * 0xBF58476D1CE4E5B9ULL);
  }
};

// The frame prefix tree: node 0 is the root; a node's parent precedes it.
struct FrameTree {
  std::vector<int32_t> parent{-1};
  std::vector<uint32_t> frame{0}, line{0};
  std::vector<uint32_t> of_stack;  // Profile stack node -> tree node
  bool has_lines = false;

  FrameTree(const analysis::Profile& p, const FrameTable& table) {
    std::unordered_map<Key3, uint32_t, Key3Hash> index;
    of_stack.assign(p.nodes.size(), 0);
    std::vector<uint32_t> frames, lines;
    for (size_t i = 0; i < p.nodes.size(); ++i) {
      const auto& sn = p.nodes[i];
      uint32_t at = sn.parent == UINT32_MAX ? 0 : of_stack[sn.parent];
      frames.clear(), lines.clear();
      table.location_frame_lines(sn.location, frames, lines);
      for (size_t k = 0; k < frames.size(); ++k) at = child(index, at, frames[k], lines[k]);
      of_stack[i] = at;
    }
  }
  uint32_t child(std::unordered_map<Key3, uint32_t, Key3Hash>& index, uint32_t at, uint32_t f, uint32_t ln) {
    has_lines |= ln != 0;
    auto [it, fresh] = index.try_emplace(Key3{at, f, ln}, static_cast<uint32_t>(parent.size()));
    if (fresh) {
      parent.push_back(static_cast<int32_t>(at));
      frame.push_back(f);
      line.push_back(ln);
    }
    return it->second;
  }
};

const char* event_kind(const analysis::ProfileEvent& e, bool has_markers) {
  if (format::is_offcpu_event_name(e.name)) return "off";
  if (has_markers) return "probe";
  if (e.unit == "nanoseconds") return "cpu";
  return "other";
}

}  // namespace

std::string base64(const void* data, size_t n) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto* b = static_cast<const uint8_t*>(data);
  std::string out;
  out.reserve((n + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    uint32_t v = (uint32_t(b[i]) << 16) | (uint32_t(b[i + 1]) << 8) | b[i + 2];
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(v >> s) & 63]);
  }
  if (n - i == 1) {
    uint32_t v = uint32_t(b[i]) << 16;
    out += {kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63], '=', '='};
  } else if (n - i == 2) {
    uint32_t v = (uint32_t(b[i]) << 16) | (uint32_t(b[i + 1]) << 8);
    out += {kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63], kAlphabet[(v >> 6) & 63], '='};
  }
  return out;
}

namespace {

struct Threads {
  std::vector<uint32_t> of_aggregate;
  std::vector<std::pair<uint32_t, uint32_t>> pid_tid;  // sorted
  std::vector<analysis::StringId> comm;  // a sample's comm, for threads no COMM named
  explicit Threads(const analysis::Profile& p) {
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> index;
    for (const auto& s : p.samples) index.emplace(std::pair{s.pid, s.tid}, s.comm);
    uint32_t k = 0;
    for (auto& [key, v] : index) comm.push_back(v), v = k++, pid_tid.push_back(key);
    of_aggregate.reserve(p.samples.size());
    for (const auto& s : p.samples) of_aggregate.push_back(index[{s.pid, s.tid}]);
  }
};

std::string thread_comm(const analysis::Profile& p, uint32_t tid, uint32_t fallback) {
  auto it = p.thread_comms.find(tid);
  return std::string(p.str(it != p.thread_comms.end() ? it->second : fallback));
}

}  // namespace

std::string page_data_json(const analysis::Profile& p, const analysis::Timeline* timeline, const PageFacts& facts) {
  FrameTable table(p);
  const auto& frames = table.frames();
  FrameTree tree(p, table);
  Threads threads(p);
  analysis::Timeline whole;  // without a timeline: one bin
  if (!timeline) {
    whole.bins = 1;
    for (uint32_t i = 0; i < p.samples.size(); ++i) whole.rows.push_back({i, 0, p.samples[i].count, p.samples[i].period});
    timeline = &whole;
  }
  const auto& t = *timeline;

  std::string d = "{\"title\":" + json_str(facts.title);
  d += ",\"empty\":" + json_str(facts.empty_reason);
  d += ",\"host\":" + json_str(p.hostname) + ",\"cmdline\":" + json_str(p.cmdline);
  d += ",\"osRelease\":" + json_str(p.os_release) + ",\"arch\":" + json_str(p.arch);
  d += fmt::format(",\"lost\":{},\"first\":\"{}\",\"last\":\"{}\",\"binNs\":{},\"bins\":{}", p.lost_samples, t.first,
                   t.last, t.bin_ns, t.bins);
  d += fmt::format(",\"markersDropped\":{},\"spansDropped\":{}", t.markers_dropped, t.spans_dropped);

  // Events, and the one shown first.
  std::vector<bool> probe(p.events.size(), false);
  for (const auto& m : t.markers) probe[p.samples[m.aggregate].event] = true;
  uint32_t shown = 0;
  d += ",\"events\":[";
  for (size_t i = 0; i < p.events.size(); ++i) {
    const auto& e = p.events[i];
    if (e.name == facts.shown_event) shown = static_cast<uint32_t>(i);
    d += fmt::format("{}{{\"name\":{},\"unit\":{},\"kind\":\"{}\",\"samples\":{},\"period\":{}}}", i ? "," : "",
                     json_str(e.name), json_str(e.unit), event_kind(e, probe[i]), e.samples, e.period);
  }
  // By default the first event that is not a probe's: the graph of hits is
  // rarely what one opens the page for.
  if (facts.shown_event.empty())
    for (size_t i = 0; i < p.events.size(); ++i)
      if (!probe[i]) {
        shown = static_cast<uint32_t>(i);
        break;
      }
  d += fmt::format("],\"shown\":{}", shown);

  d += ",\"threads\":[";
  for (size_t i = 0; i < threads.pid_tid.size(); ++i) {
    auto [pid, tid] = threads.pid_tid[i];
    d += fmt::format("{}[{},{},{}]", i ? "," : "", int64_t(pid == UINT32_MAX ? -1 : pid),
                     int64_t(tid == UINT32_MAX ? -1 : tid), json_str(thread_comm(p, tid, threads.comm[i])));
  }
  d += "]";

  // Frames: name, object, kind (bit 0 kernel, bit 1 unresolved), file.
  std::unordered_map<std::string_view, uint32_t> dso_index, file_index;
  std::vector<uint32_t> frame_dso(frames.size()), frame_file(frames.size()), kinds(frames.size());
  std::string dsos, files, names;
  for (size_t i = 0; i < frames.size(); ++i) {
    auto [dp, dfresh] = dso_index.try_emplace(frames[i].dso, static_cast<uint32_t>(dso_index.size()));
    if (dfresh) dsos += (dp->second ? "," : "") + json_str(frames[i].dso);
    frame_dso[i] = dp->second;
    auto [fp, ffresh] = file_index.try_emplace(frames[i].file, static_cast<uint32_t>(file_index.size()));
    if (ffresh) files += (fp->second ? "," : "") + json_str(frames[i].file);
    frame_file[i] = fp->second;
    names += (i ? "," : "") + json_str(frames[i].name);
    kinds[i] = (frames[i].kernel ? 1 : 0) | (frames[i].resolved ? 0 : 2);
  }
  d += ",\"names\":[" + names + "],\"dsos\":[" + dsos + "],\"files\":[" + files + "]";
  append_numbers(d, "frameDso", frame_dso);
  append_numbers(d, "frameFile", frame_file);
  append_numbers(d, "kinds", kinds);

  d += fmt::format(",\"nodes\":{}", tree.parent.size());
  append_column(d, "nodeParent", tree.parent);
  append_column(d, "nodeFrame", tree.frame);
  if (tree.has_lines) append_column(d, "nodeLine", tree.line);

  // Rows: one per (bin, thread, node, event); the Timeline's rows are by
  // bin, so merging needs a map of one bin at a time.
  std::vector<uint16_t> r_bin, r_event;
  std::vector<uint32_t> r_thread, r_node, r_count;
  std::vector<double> r_period;
  std::unordered_map<Key3, uint32_t, Key3Hash> in_bin;
  // Events whose samples carry no period count samples (Profile does the same).
  std::vector<bool> by_count(p.events.size(), false);
  for (size_t e = 0; e < p.events.size(); ++e) by_count[e] = p.events[e].period == p.events[e].samples;
  uint32_t bin = UINT32_MAX;
  for (const auto& r : t.rows) {
    if (r.bin != bin) in_bin.clear(), bin = r.bin;
    const auto& s = p.samples[r.aggregate];
    uint32_t node = s.stack == UINT32_MAX ? 0 : tree.of_stack[s.stack];
    uint32_t th = threads.of_aggregate[r.aggregate];
    auto [it, fresh] = in_bin.try_emplace(Key3{node, th, s.event}, static_cast<uint32_t>(r_bin.size()));
    if (fresh) {
      r_bin.push_back(static_cast<uint16_t>(r.bin));
      r_thread.push_back(th), r_node.push_back(node), r_event.push_back(static_cast<uint16_t>(s.event));
      r_count.push_back(0), r_period.push_back(0);
    }
    r_count[it->second] += static_cast<uint32_t>(r.count);
    r_period[it->second] += by_count[s.event] && r.period == 0 ? double(r.count) : double(r.period);
  }
  d += fmt::format(",\"rows\":{}", r_bin.size());
  append_column(d, "rowBin", r_bin);
  append_column(d, "rowThread", r_thread);
  append_column(d, "rowNode", r_node);
  append_column(d, "rowEvent", r_event);
  append_column(d, "rowCount", r_count);
  append_column(d, "rowPeriod", r_period);

  // Markers: time (ns after the first sample), thread, event, stack node, arguments.
  auto rel = [&](uint64_t time) { return time > t.first ? int64_t(time - t.first) : -int64_t(t.first - time); };
  std::string m_time, m_thread, m_event, m_node, m_args;
  for (size_t i = 0; i < t.markers.size(); ++i) {
    const auto& m = t.markers[i];
    const auto& s = p.samples[m.aggregate];
    const char* sep = i ? "," : "";
    fmt::format_to(std::back_inserter(m_time), "{}{}", sep, rel(m.time));
    fmt::format_to(std::back_inserter(m_thread), "{}{}", sep, threads.of_aggregate[m.aggregate]);
    fmt::format_to(std::back_inserter(m_event), "{}{}", sep, s.event);
    fmt::format_to(std::back_inserter(m_node), "{}{}", sep, s.stack == UINT32_MAX ? 0 : tree.of_stack[s.stack]);
    m_args += sep + json_str(m.args);
  }
  d += ",\"markerTime\":[" + m_time + "],\"markerThread\":[" + m_thread + "],\"markerEvent\":[" + m_event +
       "],\"markerNode\":[" + m_node + "],\"markerArgs\":[" + m_args + "]";

  // Off-CPU intervals: end (relative ns), length, thread, event.
  std::string o;
  for (size_t i = 0; i < t.offcpu.size(); ++i) {
    const auto& sp = t.offcpu[i];
    fmt::format_to(std::back_inserter(o), "{}{},{},{},{}", i ? "," : "", rel(sp.time), sp.period,
                   threads.of_aggregate[sp.aggregate], p.samples[sp.aggregate].event);
  }
  d += ",\"offcpu\":[" + o + "]";
  std::string l;
  for (size_t i = 0; i < t.losses.size(); ++i)
    fmt::format_to(std::back_inserter(l), "{}{},{}", i ? "," : "", rel(t.losses[i].time), t.losses[i].lost);
  d += ",\"losses\":[" + l + "]}";
  return d;
}

}  // namespace sonde::convert
