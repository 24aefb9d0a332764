#include "report/column_table.h"

#include <algorithm>

namespace sonde::report {

using analysis::Profile;

namespace {

bool is_percent(Field f) {
  return f == Field::kChildren || f == Field::kOverhead || f == Field::kOverheadSys || f == Field::kOverheadUs;
}

std::string header_name(Field f, bool children) {
  switch (f) {
    case Field::kChildren: return "Children";
    case Field::kOverhead: return children ? "Self" : "Overhead";
    case Field::kOverheadSys: return "sys";
    case Field::kOverheadUs: return "usr";
    case Field::kSample: return "Samples";
    case Field::kPeriod: return "Period";
    case Field::kComm: return "Command";
    case Field::kPid: return "    Pid:Command";
    case Field::kTid: return "    Tid:Command";
    case Field::kDso: return "Shared Object";
    case Field::kSym: return "Symbol";
    case Field::kSrcline: return "Source:Line";
    case Field::kParent: return "Parent symbol";
    case Field::kCpu: return "CPU";
    case Field::kSocket: return "Socket";
    case Field::kCore: return "Core";
  }
  return "";
}

// C's "%*.*d": at least `precision` digits (a '-' comes before them).
std::string c_int(int64_t v, size_t width, size_t precision) {
  const std::string digits = fmt::format("{}{:0{}}", v < 0 ? "-" : "", v < 0 ? -v : v, precision);
  return fmt::format("{:>{}}", digits, width);
}

}  // namespace

ColumnTable::ColumnTable(const Profile& p, const ReportOptions& o, const RowSet& rows)
    : p_(p), o_(o), rows_(rows), object_names_(p, o.verbose) {
  const std::vector<Field> elided = elided_fields(o);
  for (Field f : o.layout.columns)
    if (std::find(elided.begin(), elided.end(), f) == elided.end()) columns_.push_back(f);
  size_widths();
}

// perf's hists__calc_col_len over the rows no filter hides, then at least
// each header's width.
void ColumnTable::size_widths() {
  bool unresolved = false;
  size_t comm = 0;
  for (const HistEntry* e : rows_.visible) {
    const bool resolved = symbol_resolved(p_, *e);
    grow(Field::kSym, resolved ? symbol_name(p_, *e).size() + 4 + (o_.verbose ? 21 : 0) : 22);
    unresolved |= !resolved;
    comm = std::max(comm, thread_comm(*e).size());
    const auto& loc = p_.locations[e->location];
    if (loc.mapping != UINT32_MAX) grow(Field::kDso, object_names_(e->location).size());
    if (e->parent != UINT32_MAX) grow(Field::kParent, p_.str(p_.functions[e->parent].name).size());
    grow(Field::kSrcline, e->srcline.size());
  }
  grow(Field::kComm, comm);
  if (comm) grow(Field::kPid, comm + 8), grow(Field::kTid, comm + 8);
  if (unresolved && width(Field::kDso) < 16 && o_.dsos.empty()) grow(Field::kDso, 16);
  for (Field f : columns_) {
    grow(f, header_name(f, o_.children && !o_.layout.named).size());
    if (is_percent(f)) grow(f, 8);
    if (f == Field::kSample || f == Field::kPeriod) grow(f, 12);
  }
}

std::string ColumnTable::names() const {
  fmt::memory_buffer out;
  auto it = fmt::appender(out);
  for (size_t i = 0; i < columns_.size(); ++i) {
    const Field f = columns_[i];
    const std::string name = header_name(f, o_.children && !o_.layout.named);
    if (i) out.append(o_.field_sep.empty() ? std::string_view("  ") : std::string_view(o_.field_sep));
    if (!is_key(f)) fmt::format_to(it, "{:>{}}", name, width(f));
    else fmt::format_to(it, "{:<{}}", name.substr(0, width(f)), width(f));
  }
  return fmt::to_string(out);
}

void ColumnTable::header(fmt::memory_buffer& out) const {
  auto it = fmt::appender(out);
  fmt::format_to(it, "# {}\n", names());
  if (!o_.field_sep.empty()) return;  // perf: no rule under a separated header
  out.append(std::string_view("# "));
  for (size_t i = 0; i < columns_.size(); ++i) fmt::format_to(it, "{}{}", i ? "  " : "", std::string(width(columns_[i]), '.'));
  out.append(std::string_view("\n#\n"));
}

void ColumnTable::symbol_cell(const HistEntry& e, fmt::memory_buffer& out) const {
  const auto& loc = p_.locations[e.location];
  auto it = fmt::appender(out);
  if (o_.verbose) {
    // perf: the address in the object, and where its symbols came from
    // (sonde does not say: '.').
    uint64_t addr = loc.mapping != UINT32_MAX && !loc.kernel ? loc.file_offset : loc.address;
    fmt::format_to(it, "{:<#18x} {} ", addr, loc.kernel ? 'k' : '.');
  }
  fmt::format_to(it, "[{}] {}", e.kernel ? 'k' : '.', symbol_name(p_, e));
}

void ColumnTable::cell(Field f, const HistEntry& e, fmt::memory_buffer& out) const {
  const uint64_t total = rows_.hists->period;
  auto it = fmt::appender(out);
  // perf's hpp values: " %*.2f%%" and " %*lu", at width 1 under a separator.
  const size_t value_width = o_.field_sep.empty() ? width(f) : 1;
  auto pct = [&](uint64_t v) {
    fmt::format_to(it, "{:>{}.2f}%", total ? 100.0 * double(v) / double(total) : 0.0, value_width - 1);
  };
  if (!o_.field_sep.empty() && !is_key(f)) out.push_back(' ');
  switch (f) {
    case Field::kChildren: return pct(e.acc_period);
    case Field::kOverhead: return pct(e.self_period);
    case Field::kOverheadSys: return pct(e.sys_period);
    case Field::kOverheadUs: return pct(e.us_period);
    case Field::kSample: fmt::format_to(it, "{:>{}}", e.self_samples, value_width); return;
    case Field::kPeriod: fmt::format_to(it, "{:>{}}", e.self_period, value_width); return;
    case Field::kComm: fmt::format_to(it, "{:<{}}", p_.str(e.comm), width(f)); return;
    case Field::kPid:
    case Field::kTid:
      fmt::format_to(it, "{:>7}:{:<{}}", int32_t(e.tid), thread_comm(e), std::max<size_t>(width(f), 7) - 8);
      return;
    case Field::kDso: fmt::format_to(it, "{:<{}}", object_names_(e.location), width(f)); return;
    case Field::kSym: return symbol_cell(e, out);
    case Field::kSrcline: out.append(e.srcline); return;
    case Field::kParent:
      fmt::format_to(it, "{:<{}}", e.parent == UINT32_MAX ? "[other]" : p_.str(p_.functions[e.parent].name), width(f));
      return;
    case Field::kCpu: out.append(c_int(e.cpu, width(f), width(f))); return;
    case Field::kSocket: out.append(c_int(e.socket, width(f), width(f) - 3)); return;
    case Field::kCore: out.append(c_int(e.core, width(f), width(f) - 3)); return;
  }
}

// Every cell but the last is padded to its column's width. perf's
// repsep_snprintf: a key's text has the separator's first character
// replaced by '.'.
void ColumnTable::row(const HistEntry& e, fmt::memory_buffer& out) const {
  const std::string_view sep = o_.field_sep;
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (sep.empty()) out.append(std::string_view("  "));
    else if (i) out.append(sep);
    const size_t start = out.size();
    cell(columns_[i], e, out);
    if (!sep.empty() && is_key(columns_[i])) std::replace(out.begin() + start, out.end(), sep[0], '.');
    const size_t written = out.size() - start;
    if (i + 1 < columns_.size() && written < width(columns_[i])) out.resize(start + width(columns_[i]));
    for (size_t at = start + written; at < out.size(); ++at) out[at] = ' ';
  }
  out.push_back('\n');
}

std::string chain_frame_name(const Profile& p, const ReportOptions& o, const ChainElem& e) {
  const auto& fn = p.functions[e.function];
  const auto& loc = p.locations[e.location];
  if (!fn.resolved) return loc.address ? fmt::format("{:#x}", loc.address) : "0";  // C's %#lx
  std::string name(p.str(fn.name));
  if (o.graph.key == GraphKey::kFunction) return name;
  const std::string line = frame_srcline(p, e.location, o.graph.key);
  return line.empty() ? name : name + " " + line;
}

}  // namespace sonde::report
