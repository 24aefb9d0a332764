// Which rows a report shows and in what order, as perf report decides
// (util/hist.c hists__output_resort and the hpp sort functions): hidden
// rows (filters) go, the rest are sorted by the sort list's fields in turn,
// then rows under --percent-limit go.
#pragma once

#include <vector>

#include "analysis/profile.h"
#include "report/hist.h"
#include "report/report_table.h"

namespace sonde::report {

struct RowSet {
  const EventHists* hists = nullptr;
  std::vector<const HistEntry*> visible;  // not hidden by a filter (perf sizes the columns by these)
  std::vector<const HistEntry*> shown;    // sorted, above --percent-limit
};

// perf hides a key's column when its filter names one value (--comm X,
// --dsos X): every row has it.
std::vector<Field> elided_fields(const ReportOptions& o);

// What the hists need of the report's options.
HistOptions hist_options(const ReportOptions& o);

std::vector<RowSet> arrange_rows(const analysis::Profile& p, const std::vector<EventHists>& hists,
                                 const ReportOptions& o);

// A row's symbol: its name, or perf's 0x%016x of its address.
std::string_view symbol_name(const analysis::Profile& p, const HistEntry& e);
bool symbol_resolved(const analysis::Profile& p, const HistEntry& e);

}  // namespace sonde::report
