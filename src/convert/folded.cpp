// Folded stacks (Brendan Gregg's stackcollapse output): "root;...;leaf N",
// N = number of samples; for off-CPU time, N = nanoseconds off CPU (a count
// of off-CPU samples means nothing: one may hold one block or a thousand),
// as Gregg's off-CPU folded stacks carry time. Input to flamegraph.pl,
// inferno, speedscope.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "convert/convert.h"
#include "convert/frames.h"
#include "format/event_kind.h"
#include "util/error.h"
#include "util/mapped_path.h"

namespace sonde::convert {

namespace {

// ';' separates frames and the last ' ' the count: names must not break
// the line structure ('; ' appear in some demangled template arguments).
void append_name(std::string& line, std::string_view name) {
  for (char c : name) line.push_back(c == ';' ? ':' : (c == '\n' ? ' ' : c));
}

// A frame without a symbol reads as its object, as stackcollapse-perf.pl
// names it from perf script ("[libfoo.so]"); perf's own bracketed names
// stay as they are ("[JIT] tid PID", "[kernel.kallsyms]").
void append_frame(std::string& line, const Frame& f) {
  if (f.resolved || f.dso.empty()) return append_name(line, f.name);
  if (is_pseudo_path(f.dso)) return append_name(line, f.dso);
  line.push_back('[');
  append_name(line, base_name(f.dso));
  line.push_back(']');
}

}  // namespace

void write_folded(const analysis::Profile& p, const FoldedOptions& opts, std::ostream& out) {
  const uint32_t ev = primary_event(p);
  if (ev == UINT32_MAX) return;
  FrameTable table(p);

  // Aggregate first by (prefix, stack node): ProfileSamples differ by cpu,
  // tid, ... that folded output does not show.
  struct Key {
    uint32_t comm, pid, tid, stack;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = k.stack;
      for (uint32_t v : {k.comm, k.pid, k.tid}) h = (h ^ v) * 0x100000001b3ULL;
      return static_cast<size_t>(h);
    }
  };
  std::unordered_map<Key, uint64_t, KeyHash> counts;
  const bool weigh_by_time = format::is_offcpu(p.events[ev].kind);
  for (const auto& s : p.samples) {
    if (s.event != ev) continue;
    Key k{opts.comm_frame || opts.pid_frame ? s.comm : 0u, opts.pid_frame ? s.pid : 0u, 0u, s.stack};
    counts[k] += weigh_by_time ? s.period : s.count;
  }

  // Different stack nodes can print the same (e.g. two unresolved addresses
  // of one object are both "[libfoo.so]"): merge by the printed line.
  std::unordered_map<std::string, uint64_t> merged;
  merged.reserve(counts.size());
  std::vector<uint32_t> frames;
  std::string line;
  for (const auto& [k, n] : counts) {
    line.clear();
    if (opts.pid_frame) {
      append_name(line, p.str(k.comm));
      fmt::format_to(std::back_inserter(line), "-{}", k.pid);
    } else if (opts.comm_frame) {
      append_name(line, p.str(k.comm));
    }
    if (k.stack != UINT32_MAX) {
      table.stack_frames(k.stack, frames);
      for (uint32_t f : frames) {
        if (!line.empty()) line.push_back(';');
        append_frame(line, table.frames()[f]);
      }
    }
    if (line.empty()) line = "[no stack]";
    merged[line] += n;
  }
  // Sorted like stackcollapse output, so files diff well.
  std::vector<std::pair<std::string_view, uint64_t>> lines(merged.begin(), merged.end());
  std::sort(lines.begin(), lines.end());
  std::string buf;
  for (const auto& [l, n] : lines) {
    buf.append(l);
    fmt::format_to(std::back_inserter(buf), " {}\n", n);
    if (buf.size() > (1 << 20)) out.write(buf.data(), static_cast<std::streamsize>(buf.size())), buf.clear();
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  if (!out) throw_runtime("folded: cannot write the output");
}

}  // namespace sonde::convert
