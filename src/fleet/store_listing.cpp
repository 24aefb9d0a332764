#include "fleet/store_listing.h"

#include <fmt/format.h>

#include "fleet/clickhouse.h"
#include "fleet/fleet_query.h"

namespace sonde::fleet {

namespace {

constexpr size_t kListingColumns = 15;  // the readers' 13, host, labels

// A frame as perf script prints one: address, function+offset, object.
void append_frame(const analysis::Profile& p, const analysis::ProfileLocation& loc, fmt::memory_buffer& buf) {
  std::string_view dso = "[unknown]";
  if (loc.mapping < p.mappings.size()) dso = p.str(p.mappings[loc.mapping].path);
  if (loc.kernel && dso.starts_with("[kernel.kallsyms]")) dso = "[kernel.kallsyms]";
  const analysis::ProfileFunction* fn = loc.function < p.functions.size() ? &p.functions[loc.function] : nullptr;
  if (fn && fn->resolved)
    fmt::format_to(fmt::appender(buf), "\t{:>16x} {}+{:#x} ({})\n", loc.address, p.str(fn->name), loc.symbol_offset, dso);
  else
    fmt::format_to(fmt::appender(buf), "\t{:>16x} [unknown] ({})\n", loc.address, dso);
}

}  // namespace

StoreListing listing_from_answers(const std::vector<std::vector<std::string>>& rows,
                                  const std::vector<std::vector<std::string>>& stacks) {
  std::vector<std::vector<std::string>> whole;
  for (const auto& r : rows)
    if (r.size() >= kListingColumns) whole.push_back(r);
  StoreListing l;
  l.profile = profile_from_answers(whole, stacks);
  for (const auto& r : whole) {
    std::string extra = fmt::format("samples={} host={}", r[9], r[13]);
    if (!r[14].empty()) extra += " " + r[14];
    l.extras.push_back(std::move(extra));
  }
  return l;
}

StoreListing load_store_listing(const std::string& url_text) {
  const StoreQuery q = open_store_query(url_text);
  // Rows of one key but several pushes (recordings) are one entry.
  auto rows = q.ch.rows(
      "SELECT event, any(event_unit), any(sample_type), min(attr_index), comm, pid, tid, cpu, stack_id, sum(count), "
      "sum(period), toUInt32(bucket), any(event_kind), host, arrayStringConcat(arrayMap((k, v) -> concat(k, '=', v), label_keys, "
      "label_values), ' ') AS labels FROM " +
      q.samples +
      " GROUP BY bucket, host, event, comm, pid, tid, cpu, stack_id, labels "
      "ORDER BY bucket, host, pid, tid, min(attr_index), event, stack_id, labels");
  StoreListing l = listing_from_answers(rows, fetch_stacks(q));
  l.profile.hostname = q.url.host;
  return l;
}

void print_store_listing(const StoreListing& l, size_t max_stack, bool hide_callchain, std::FILE* out) {
  const analysis::Profile& p = l.profile;
  fmt::memory_buffer buf;
  std::vector<uint32_t> locs;
  for (size_t i = 0; i < p.samples.size() && i < l.extras.size(); ++i) {
    const analysis::ProfileSample& s = p.samples[i];
    fmt::format_to(fmt::appender(buf), "{} {:>7}/{:<7} [{:03}] {}.{:06}: {:>10} {}: {}\n", p.str(s.comm), s.pid, s.tid,
                   s.cpu, s.first_time / 1000000000, 0, s.period, p.events[s.event].name, l.extras[i]);
    if (!hide_callchain) {
      locs.clear();
      if (s.stack != UINT32_MAX) p.stack_locations(s.stack, locs);
      for (size_t f = 0; f < locs.size() && (max_stack == 0 || f < max_stack); ++f)
        append_frame(p, p.locations[locs[f]], buf);
      buf.push_back('\n');
    }
    if (buf.size() > (1 << 16)) std::fwrite(buf.data(), 1, buf.size(), out), buf.clear();
  }
  std::fwrite(buf.data(), 1, buf.size(), out);
}

}  // namespace sonde::fleet
