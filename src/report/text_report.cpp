#include "report/text_report.h"

#include <algorithm>

#include "report/call_graph_printer.h"
#include "report/column_table.h"

namespace sonde::report {

using analysis::Profile;

namespace {

// perf's unit: "1K" above a thousand samples.
std::string sample_count(uint64_t n) {
  char unit = ' ';
  for (char u : {'K', 'M', 'G'})
    if (n > 1000) n /= 1000, unit = u;
  return fmt::format("{}{}", n, unit);
}

void write_event(const Profile& p, const RowSet& rs, const ReportOptions& o, fmt::memory_buffer& out) {
  auto it = fmt::appender(out);
  const ColumnTable table(p, o, rs);
  if (!o.quiet) {
    fmt::format_to(it, "# Samples: {} of event '{}'", sample_count(rs.hists->samples), p.events[rs.hists->event].name);
    if (!o.time_text.empty()) fmt::format_to(it, " (time slices: {})", o.time_text);
    fmt::format_to(it, "\n# Event count (approx.): {}\n#\n", rs.hists->period);
    table.header(out);
  }
  GraphPrint how{o.graph, [&](const ChainElem& e) { return chain_frame_name(p, o, e); }, o.sort_starts_with_sym};
  for (const HistEntry* e : rs.shown) {
    table.row(*e, out);
    if (o.call_graph && e->chains)
      print_call_graph(*e->chains, how, rs.hists->period, o.children ? e->acc_period : e->self_period, out);
  }
  fmt::format_to(it, "\n\n");
}

}  // namespace

void write_text_report(const Profile& p, const std::vector<RowSet>& rows, const ReportOptions& o,
                       fmt::memory_buffer& out) {
  auto it = fmt::appender(out);
  if (!o.quiet && !o.header.empty()) out.append(o.header.data(), o.header.data() + o.header.size());
  else if (!o.quiet) fmt::format_to(it, "# To display the perf.data header info, please use --header/--header-only options.\n#\n");
  if (rows.empty()) return;  // perf stops here when no sample is left (and says so on stderr)
  // perf names the one value a filter leaves (its column is not printed).
  for (Field f : o.layout.columns) {
    if (f == Field::kComm && o.comms.size() == 1) fmt::format_to(it, "# comm: {}\n", o.comms[0]);
    if (f == Field::kDso && o.dsos.size() == 1) fmt::format_to(it, "# dso: {}\n", o.dsos[0]);
    if (f == Field::kSym && o.symbols && o.symbols->size() == 1) fmt::format_to(it, "# symbol: {}\n", (*o.symbols)[0]);
  }
  if (!o.quiet) fmt::format_to(it, "#\n# Total Lost Samples: {}\n#\n", p.lost_samples);
  for (const RowSet& rs : rows) write_event(p, rs, o, out);
  if (o.thread_counts) out.append(o.thread_counts->data(), o.thread_counts->data() + o.thread_counts->size());
  for (const auto& n : p.notes) fmt::format_to(it, "# note: {}\n", n);
}

}  // namespace sonde::report
