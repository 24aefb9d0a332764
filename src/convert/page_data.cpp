#include "convert/page_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "convert/frames.h"
#include "format/event_kind.h"

namespace sonde::convert {

std::string json_str(std::string_view s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

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
  if (format::is_offcpu(e.kind)) return "off";
  if (has_markers) return "probe";
  if (e.kind == format::EventKind::kCpuTime) return "cpu";
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

namespace {

// The JSON object, one part per method, in the order the page reads them.
class PageJson {
 public:
  PageJson(const analysis::Profile& p, const analysis::Timeline& t)
      : p_(p), t_(t), table_(p), tree_(p, table_), threads_(p) {}

  std::string take() { return std::move(d_) + "}"; }

  void facts(const PageFacts& facts) {
    d_ = "{\"title\":" + json_str(facts.title);
    d_ += ",\"empty\":" + json_str(facts.empty_reason);
    d_ += ",\"host\":" + json_str(p_.hostname) + ",\"cmdline\":" + json_str(p_.cmdline);
    d_ += ",\"osRelease\":" + json_str(p_.os_release) + ",\"arch\":" + json_str(p_.arch);
    d_ += fmt::format(",\"lost\":{},\"first\":\"{}\",\"last\":\"{}\",\"binNs\":{},\"bins\":{}", p_.lost_samples,
                      t_.first, t_.last, t_.bin_ns, t_.bins);
    d_ += fmt::format(",\"markersDropped\":{},\"spansDropped\":{}", t_.markers_dropped, t_.spans_dropped);
  }

  // Events, their kind, and the one shown first: the one asked for, else the
  // first that is not a probe's (a graph of hits is rarely what one opens
  // the page for).
  void events(const std::string& asked) {
    std::vector<bool> probe(p_.events.size(), false);
    for (const auto& m : t_.markers) probe[p_.samples[m.aggregate].event] = true;
    uint32_t shown = UINT32_MAX;
    d_ += ",\"events\":[";
    for (size_t i = 0; i < p_.events.size(); ++i) {
      const auto& e = p_.events[i];
      if (e.name == asked) shown = static_cast<uint32_t>(i);
      d_ += fmt::format("{}{{\"name\":{},\"unit\":{},\"kind\":\"{}\",\"samples\":{},\"period\":{}}}", i ? "," : "",
                        json_str(e.name), json_str(e.unit()), event_kind(e, probe[i]), e.samples, e.period);
    }
    for (size_t i = 0; i < p_.events.size() && shown == UINT32_MAX; ++i)
      if (!probe[i]) shown = static_cast<uint32_t>(i);
    d_ += fmt::format("],\"shown\":{}", shown == UINT32_MAX ? 0 : shown);
  }

  // [pid, tid, comm] per thread, by pid then tid (-1 for an unknown id).
  void threads() {
    d_ += ",\"threads\":[";
    for (size_t i = 0; i < threads_.pid_tid.size(); ++i) {
      auto [pid, tid] = threads_.pid_tid[i];
      d_ += fmt::format("{}[{},{},{}]", i ? "," : "", int64_t(pid == UINT32_MAX ? -1 : pid),
                        int64_t(tid == UINT32_MAX ? -1 : tid), json_str(thread_comm(p_, tid, threads_.comm[i])));
    }
    d_ += "]";
  }

  // Frames: name, object, kind (bit 0 kernel, bit 1 unresolved), source
  // file; then the prefix tree's nodes.
  void frames() {
    const auto& frames = table_.frames();
    std::unordered_map<std::string_view, uint32_t> dso_index, file_index;
    std::vector<uint32_t> frame_dso(frames.size()), frame_file(frames.size()), kinds(frames.size());
    std::string dsos, files, names;
    for (size_t i = 0; i < frames.size(); ++i) {
      auto [dp, dfresh] = dso_index.try_emplace(frames[i].dso, static_cast<uint32_t>(dso_index.size()));
      if (dfresh) { dsos += dp->second ? "," : ""; dsos += json_str(frames[i].dso); }
      frame_dso[i] = dp->second;
      auto [fp, ffresh] = file_index.try_emplace(frames[i].file, static_cast<uint32_t>(file_index.size()));
      if (ffresh) { files += fp->second ? "," : ""; files += json_str(frames[i].file); }
      frame_file[i] = fp->second;
      names += i ? "," : ""; names += json_str(frames[i].name);
      kinds[i] = (frames[i].kernel ? 1 : 0) | (frames[i].resolved ? 0 : 2);
    }
    d_ += ",\"names\":[" + names + "],\"dsos\":[" + dsos + "],\"files\":[" + files + "]";
    append_numbers(d_, "frameDso", frame_dso);
    append_numbers(d_, "frameFile", frame_file);
    append_numbers(d_, "kinds", kinds);
    d_ += fmt::format(",\"nodes\":{}", tree_.parent.size());
    append_column(d_, "nodeParent", tree_.parent);
    append_column(d_, "nodeFrame", tree_.frame);
    if (tree_.has_lines) append_column(d_, "nodeLine", tree_.line);
  }

  // One row per (bin, thread, node, event). The Timeline's rows are by bin,
  // so merging needs a map of one bin at a time.
  void rows() {
    std::vector<uint16_t> r_bin, r_event;
    std::vector<uint32_t> r_thread, r_node, r_count;
    std::vector<double> r_period;
    std::unordered_map<Key3, uint32_t, Key3Hash> in_bin;
    // Events whose samples carry no period count samples (Profile does the same).
    std::vector<bool> by_count(p_.events.size(), false);
    for (size_t e = 0; e < p_.events.size(); ++e) by_count[e] = p_.events[e].period == p_.events[e].samples;
    uint32_t bin = UINT32_MAX;
    for (const auto& r : t_.rows) {
      if (r.bin != bin) in_bin.clear(), bin = r.bin;
      const auto& s = p_.samples[r.aggregate];
      const uint32_t node = node_of(r.aggregate), th = threads_.of_aggregate[r.aggregate];
      auto [it, fresh] = in_bin.try_emplace(Key3{node, th, s.event}, static_cast<uint32_t>(r_bin.size()));
      if (fresh) {
        r_bin.push_back(static_cast<uint16_t>(r.bin));
        r_thread.push_back(th), r_node.push_back(node), r_event.push_back(static_cast<uint16_t>(s.event));
        r_count.push_back(0), r_period.push_back(0);
      }
      r_count[it->second] += static_cast<uint32_t>(r.count);
      r_period[it->second] += by_count[s.event] && r.period == 0 ? double(r.count) : double(r.period);
    }
    d_ += fmt::format(",\"rows\":{}", r_bin.size());
    append_column(d_, "rowBin", r_bin);
    append_column(d_, "rowThread", r_thread);
    append_column(d_, "rowNode", r_node);
    append_column(d_, "rowEvent", r_event);
    append_column(d_, "rowCount", r_count);
    append_column(d_, "rowPeriod", r_period);
  }

  // Probe hits: time (ns after the first sample), thread, event, stack node, arguments.
  void markers() {
    std::string m_time, m_thread, m_event, m_node, m_args;
    for (size_t i = 0; i < t_.markers.size(); ++i) {
      const auto& m = t_.markers[i];
      const char* sep = i ? "," : "";
      fmt::format_to(std::back_inserter(m_time), "{}{}", sep, relative(m.time));
      fmt::format_to(std::back_inserter(m_thread), "{}{}", sep, threads_.of_aggregate[m.aggregate]);
      fmt::format_to(std::back_inserter(m_event), "{}{}", sep, p_.samples[m.aggregate].event);
      fmt::format_to(std::back_inserter(m_node), "{}{}", sep, node_of(m.aggregate));
      m_args += sep;
      m_args += json_str(m.args);
    }
    d_ += ",\"markerTime\":[" + m_time + "],\"markerThread\":[" + m_thread + "],\"markerEvent\":[" + m_event +
          "],\"markerNode\":[" + m_node + "],\"markerArgs\":[" + m_args + "]";
  }

  // Off-CPU intervals (end, length, thread, event) and losses (time, count).
  void intervals() {
    std::string o, l;
    for (size_t i = 0; i < t_.offcpu.size(); ++i) {
      const auto& sp = t_.offcpu[i];
      fmt::format_to(std::back_inserter(o), "{}{},{},{},{}", i ? "," : "", relative(sp.time), sp.period,
                     threads_.of_aggregate[sp.aggregate], p_.samples[sp.aggregate].event);
    }
    for (size_t i = 0; i < t_.losses.size(); ++i)
      fmt::format_to(std::back_inserter(l), "{}{},{}", i ? "," : "", relative(t_.losses[i].time), t_.losses[i].lost);
    d_ += ",\"offcpu\":[" + o + "],\"losses\":[" + l + "]";
  }

 private:
  uint32_t node_of(uint32_t aggregate) const {
    uint32_t stack = p_.samples[aggregate].stack;
    return stack == UINT32_MAX ? 0 : tree_.of_stack[stack];
  }
  int64_t relative(uint64_t time) const {
    return time >= t_.first ? int64_t(time - t_.first) : -int64_t(t_.first - time);
  }

  const analysis::Profile& p_;
  const analysis::Timeline& t_;
  FrameTable table_;
  FrameTree tree_;
  Threads threads_;
  std::string d_;
};

}  // namespace

std::string page_data_json(const analysis::Profile& p, const analysis::Timeline* timeline, const PageFacts& facts) {
  analysis::Timeline whole;  // without a timeline: one bin
  if (!timeline) {
    whole.bins = 1;
    for (uint32_t i = 0; i < p.samples.size(); ++i) whole.rows.push_back({i, 0, p.samples[i].count, p.samples[i].period});
    timeline = &whole;
  }
  PageJson j(p, *timeline);
  j.facts(facts);
  j.events(facts.shown_event);
  j.threads();
  j.frames();
  j.rows();
  j.markers();
  j.intervals();
  std::string data = j.take();
  if (!facts.annotate_json.empty()) data.insert(data.size() - 1, ",\"annotate\":" + facts.annotate_json);
  return data;
}

}  // namespace sonde::convert
