// The perf report --stdio layout: the header lines, per event its Samples
// and Event count, the column headers and their dots, the rows and their
// call graphs (ui/stdio/hist.c, builtin-report.c).
#pragma once

#include <fmt/format.h>

#include "report/report_rows.h"

namespace sonde::report {

void write_text_report(const analysis::Profile& p, const std::vector<RowSet>& rows, const ReportOptions& o,
                       fmt::memory_buffer& out);

}  // namespace sonde::report
