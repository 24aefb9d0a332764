#include "report/report_view.h"

#include "report/call_graph_printer.h"

namespace sonde::report {

ReportView::ReportView(const analysis::Profile& p, ReportOptions o)
    : p_(p), o_(std::move(o)), hists_(build_hists(p_, hist_options(o_))), rows_(arrange_rows(p_, hists_, o_)) {
  for (const RowSet& rs : rows_) tables_.push_back(std::make_unique<ColumnTable>(p_, o_, rs));
}

std::string ReportView::column_names(size_t event) const {
  std::string names = tables_[event]->names();
  names.erase(names.find_last_not_of(' ') + 1);
  return names;
}

std::string ReportView::row_line(size_t event, const HistEntry& e) const {
  fmt::memory_buffer buf;
  tables_[event]->row(e, buf);
  if (buf.size()) buf.resize(buf.size() - 1);  // the newline
  return fmt::to_string(buf);
}

std::string ReportView::call_graph(size_t event, const HistEntry& e) const {
  if (!e.chains) return "";
  fmt::memory_buffer buf;
  GraphPrint how{o_.graph, [&](const ChainElem& c) { return chain_frame_name(p_, o_, c); }, o_.sort_starts_with_sym};
  print_call_graph(*e.chains, how, rows_[event].hists->period, o_.children ? e.acc_period : e.self_period, buf);
  return fmt::to_string(buf);
}

}  // namespace sonde::report
