#include "fleet/hit_args.h"

#include "format/perf_abi.h"

namespace sonde::fleet {

Labels split_args(const std::string& text) {
  Labels out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    const std::string token = text.substr(pos, end - pos);
    if (const size_t eq = token.find('='); eq != std::string::npos && eq > 0)
      out.emplace_back(token.substr(0, eq), token.substr(eq + 1));
    pos = end + 1;
  }
  return out;
}

// One field at a time through format_tracepoint_fields: string values may
// hold spaces, so the joined text could not be split back.
bool HitArgs::probe_fields(const format::Sample& s, Labels& out) {
  if (!s.event || s.event->attr.type != PERF_TYPE_TRACEPOINT || s.raw.empty() || !session_) return false;
  if (!formats_loaded_) {
    formats_ = format::parse_tracing_data(session_->tracing_data());
    formats_loaded_ = true;
  }
  auto it = formats_.find(s.event->attr.config);
  if (it == formats_.end() || !it->second.system.starts_with("probe")) return false;
  format::TracepointFormat one = it->second;
  for (const auto& f : it->second.fields) {
    if (f.name.starts_with("__")) continue;  // __probe_ip: a runtime address, one row per process
    one.fields = {f};
    const std::string text = format::format_tracepoint_fields(one, s.raw);
    const size_t eq = text.find('=');
    out.emplace_back(f.name, eq == std::string::npos ? "" : text.substr(eq + 1));
  }
  return !out.empty();
}

uint32_t HitArgs::of(const format::Sample& s) {
  Labels labels;
  if (!probe_fields(s, labels)) {
    text_.clear();
    if (!sdt_ || !sdt_(s, text_)) return 0;
    labels = split_args(text_);
  }
  if (labels.empty()) return 0;
  auto [it, added] = index_.emplace(std::move(labels), uint32_t(lists_.size()));
  if (added) lists_.push_back(it->first);
  return it->second;
}

}  // namespace sonde::fleet
