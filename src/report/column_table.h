// The columns of perf report's --stdio table for one event's rows
// (ui/stdio/hist.c, util/hist.c hists__calc_col_len): which fields are
// printed, each column's width, the header and a row's cells. Shared by the
// text report and `sonde top`.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "report/report_rows.h"

namespace sonde::report {

class ColumnTable {
 public:
  // Sized as perf sizes them: by the rows no filter hides.
  ColumnTable(const analysis::Profile& p, const ReportOptions& o, const RowSet& rows);

  // perf's three header lines: "# " and the column names, their dots, "#".
  void header(fmt::memory_buffer& out) const;
  // The column names alone, aligned with row()'s cells.
  std::string names() const;
  // One row: each cell after two spaces, a newline at the end.
  void row(const HistEntry& e, fmt::memory_buffer& out) const;

 private:
  void size_widths();
  void grow(Field f, size_t n) {
    size_t& w = widths_[static_cast<size_t>(f)];
    w = std::max(w, n);
  }
  size_t width(Field f) const { return widths_[static_cast<size_t>(f)]; }
  // Appended to `out` (no string per cell: a report prints rows x columns).
  void cell(Field f, const HistEntry& e, fmt::memory_buffer& out) const;
  void symbol_cell(const HistEntry& e, fmt::memory_buffer& out) const;
  std::string_view thread_comm(const HistEntry& e) const {
    auto it = p_.thread_comms.find(e.tid);
    return it == p_.thread_comms.end() ? p_.str(e.comm) : p_.str(it->second);
  }

  const analysis::Profile& p_;
  const ReportOptions& o_;
  const RowSet& rows_;
  const ObjectNames object_names_;  // each mapping's name, made once
  std::vector<Field> columns_;
  size_t widths_[32] = {};
};

// A call-graph frame's text (perf's callchain_list__sym_name): the name,
// with the address or srcline key its line; an unresolved frame's address.
std::string chain_frame_name(const analysis::Profile& p, const ReportOptions& o, const ChainElem& e);

}  // namespace sonde::report
