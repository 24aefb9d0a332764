// A report computed once and shown piece by piece, for views that are not
// one whole text report (`sonde top`): each event's rows, the column names,
// one row's line and one row's call graph, in the text report's layout.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "report/column_table.h"
#include "report/hist.h"
#include "report/report_rows.h"

namespace sonde::report {

class ReportView {
 public:
  // `p` must outlive the view. With `o.call_graph`, rows keep their chains.
  ReportView(const analysis::Profile& p, ReportOptions o);
  ReportView(const ReportView&) = delete;  // rows and tables point into it
  ReportView& operator=(const ReportView&) = delete;

  size_t events() const { return rows_.size(); }
  const RowSet& rows(size_t event) const { return rows_[event]; }
  // The column names, aligned with row_line's cells (no trailing blanks).
  std::string column_names(size_t event) const;
  // One row's line, without its newline.
  std::string row_line(size_t event, const HistEntry& e) const;
  // The row's call graph as the text report prints it under the row (empty
  // without chains).
  std::string call_graph(size_t event, const HistEntry& e) const;

 private:
  const analysis::Profile& p_;
  const ReportOptions o_;
  std::vector<EventHists> hists_;
  std::vector<RowSet> rows_;
  std::vector<std::unique_ptr<ColumnTable>> tables_;
};

}  // namespace sonde::report
