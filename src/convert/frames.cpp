#include "convert/frames.h"

#include <unordered_map>

#include "convert/convert.h"

namespace sonde::convert {

namespace {

// A profile built by hand may name only the path.
analysis::StringId object_name(const analysis::ProfileMapping& m) { return m.object ? m.object : m.path; }

}  // namespace

std::optional<Format> parse_format(std::string_view name) {
  if (name == "pprof") return Format::kPprof;
  if (name == "folded") return Format::kFolded;
  if (name == "speedscope") return Format::kSpeedscope;
  if (name == "html") return Format::kHtml;
  if (name == "perf") return Format::kPerf;
  if (name == "otlp") return Format::kOtlp;
  return std::nullopt;
}

std::string format_names() { return "pprof, folded, speedscope, html, perf, otlp"; }

uint32_t primary_event(const analysis::Profile& p) { return p.events.empty() ? UINT32_MAX : 0; }

std::string_view base_name(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

void location_functions(const analysis::Profile& p, uint32_t location, std::vector<uint32_t>& out) {
  const auto& loc = p.locations[location];
  if (loc.lines.empty()) {
    out.push_back(loc.function);
    return;
  }
  // lines are innermost first; callers want the outermost first.
  for (auto it = loc.lines.rbegin(); it != loc.lines.rend(); ++it) out.push_back(it->function);
}

FrameTable::FrameTable(const analysis::Profile& p) : p_(p) {
  // Key: (name, object path) as two string ids; unresolved functions share
  // the name "[unknown]" per object, as perf script and stackcollapse do.
  std::unordered_map<uint64_t, uint32_t> index;
  index.reserve(p.functions.size());
  of_function_.resize(p.functions.size());
  const analysis::StringId unknown = UINT32_MAX;
  for (size_t i = 0; i < p.functions.size(); ++i) {
    const auto& fn = p.functions[i];
    analysis::StringId dso = fn.mapping < p.mappings.size() ? p.mappings[fn.mapping].path : 0;
    analysis::StringId name = fn.resolved ? fn.name : unknown;
    uint64_t key = (uint64_t(name) << 32) | dso;
    auto [it, fresh] = index.try_emplace(key, static_cast<uint32_t>(frames_.size()));
    if (fresh) {
      Frame f;
      f.name = fn.resolved ? p.str(fn.name) : std::string_view("[unknown]");
      f.dso = p.str(fn.mapping < p.mappings.size() ? object_name(p.mappings[fn.mapping]) : 0);
      f.build_id = fn.mapping < p.mappings.size() ? p.str(p.mappings[fn.mapping].build_id) : std::string_view();
      f.file = p.str(fn.file);
      f.kernel = fn.mapping < p.mappings.size() ? p.mappings[fn.mapping].kernel : false;
      f.resolved = fn.resolved;
      frames_.push_back(f);
    } else if (frames_[it->second].file.empty() && fn.file) {
      frames_[it->second].file = p.str(fn.file);
    }
    of_function_[i] = it->second;
  }
  // Kernel frames without a mapping: mark from their locations.
  for (const auto& loc : p.locations)
    if (loc.kernel) frames_[of_function_[loc.function]].kernel = true;
}

void FrameTable::location_frames(uint32_t location, std::vector<uint32_t>& out) const {
  const auto& loc = p_.locations[location];
  if (loc.lines.empty()) {
    out.push_back(of_function_[loc.function]);
    return;
  }
  for (auto it = loc.lines.rbegin(); it != loc.lines.rend(); ++it) out.push_back(of_function_[it->function]);
}

void FrameTable::location_frame_lines(uint32_t location, std::vector<uint32_t>& out,
                                      std::vector<uint32_t>& lines) const {
  const auto& loc = p_.locations[location];
  if (loc.lines.empty()) {
    out.push_back(of_function_[loc.function]);
    lines.push_back(0);
    return;
  }
  for (auto it = loc.lines.rbegin(); it != loc.lines.rend(); ++it) {
    out.push_back(of_function_[it->function]);
    lines.push_back(it->line);
  }
}

void FrameTable::stack_frames(uint32_t leaf, std::vector<uint32_t>& out) const {
  out.clear();
  p_.stack_locations(leaf, locs_);  // leaf first
  for (auto it = locs_.rbegin(); it != locs_.rend(); ++it) location_frames(*it, out);
}

}  // namespace sonde::convert
