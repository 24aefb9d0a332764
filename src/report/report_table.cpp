#include "report/report_table.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "report/hist.h"
#include "report/report_rows.h"
#include "report/text_report.h"
#include "util/error.h"

namespace sonde::report {

using analysis::Profile;

namespace {

// sonde's own schema (docs/export.md): the rows of the text report, with
// exact periods and sample counts.
void write_json(const Profile& p, const ReportOptions& o, const std::vector<RowSet>& rows, std::FILE* out) {
  nlohmann::ordered_json j;
  j["header"] = {{"hostname", p.hostname}, {"os_release", p.os_release}, {"arch", p.arch},
                 {"cmdline", p.cmdline},   {"lost_samples", p.lost_samples}, {"truncated_bytes", p.outcome.truncated_bytes}};
  auto& sort = j["sort"] = nlohmann::ordered_json::array();
  for (Field f : o.layout.sort)
    if (is_key(f)) sort.push_back(field_name(f));
  j["children"] = o.children;
  auto& events = j["events"] = nlohmann::ordered_json::array();
  for (const RowSet& rs : rows) {
    const uint64_t total = rs.hists->period;
    auto pct = [&](uint64_t v) { return total ? 100.0 * double(v) / double(total) : 0.0; };
    nlohmann::ordered_json ev{{"name", p.events[rs.hists->event].name}, {"samples", rs.hists->samples}, {"period", total}};
    auto& entries = ev["entries"] = nlohmann::ordered_json::array();
    for (const HistEntry* e : rs.shown) {
      nlohmann::ordered_json je;
      for (Field f : o.layout.sort) {
        switch (f) {
          case Field::kComm: je["comm"] = p.str(e->comm); break;
          case Field::kPid:
          case Field::kTid: je["pid"] = e->pid, je["tid"] = e->tid; break;
          case Field::kDso: je["dso"] = object_name(p, e->location, o.verbose); break;
          case Field::kSym: je["sym"] = symbol_name(p, *e), je["kernel"] = p.locations[e->location].kernel; break;
          case Field::kSrcline: je["srcline"] = e->srcline; break;
          case Field::kParent: je["parent"] = e->parent == UINT32_MAX ? "[other]" : p.str(p.functions[e->parent].name); break;
          case Field::kCpu: je["cpu"] = e->cpu; break;
          case Field::kSocket: je["socket"] = e->socket; break;
          case Field::kCore: je["core"] = e->core; break;
          default: break;
        }
      }
      if (o.children) je["children"] = pct(e->acc_period), je["children_period"] = e->acc_period, je["children_samples"] = e->acc_samples;
      je["self"] = pct(e->self_period);
      je["self_period"] = e->self_period;
      je["self_samples"] = e->self_samples;
      entries.push_back(std::move(je));
    }
    events.push_back(std::move(ev));
  }
  j["notes"] = p.notes;
  std::string text = j.dump(2);
  text += '\n';
  if (std::fwrite(text.data(), 1, text.size(), out) != text.size()) throw_runtime("cannot write the report");
}

}  // namespace

void write_report(const Profile& p, const ReportOptions& o, std::FILE* out) {
  const std::vector<EventHists> hists = build_hists(p, hist_options(o));
  const std::vector<RowSet> rows = arrange_rows(p, hists, o);
  if (o.json) return write_json(p, o, rows, out);
  fmt::memory_buffer buf;
  write_text_report(p, rows, o, buf);
  if (std::fwrite(buf.data(), 1, buf.size(), out) != buf.size()) throw_runtime("cannot write the report");
}

}  // namespace sonde::report
