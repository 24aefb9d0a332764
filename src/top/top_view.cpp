#include "top/top_view.h"

#include <fmt/format.h>

#include <algorithm>

namespace sonde::top {

namespace {

// Rows above the table: header, status, an empty line, column names.
constexpr size_t kTableTop = 4;

std::string cut(std::string line, size_t cols) {
  if (line.size() > cols) line.resize(cols);
  return line;
}

std::string row_text(const report::ReportOptions& o, const report::ReportEntry& e, const report::TableLayout& l) {
  fmt::memory_buffer buf;
  report::format_row(o, e, l, buf);
  return fmt::to_string(buf);
}

}  // namespace

TopView::TopView(ViewSettings settings) : settings_(std::move(settings)) {
  options_.sort = settings_.sort;
  options_.children = settings_.children;
  options_.caller_order = false;  // the entry first, toward its callers: perf's default order
}

std::vector<std::string> TopView::help_lines() {
  return {
      "sonde top keys",
      "",
      "  Up/Down, k/j    move the selection (PgUp/PgDn, Home/End: by pages)",
      "  Enter, g        call graph of the selected entry (again, or Esc: back to the table)",
      "  c               sort by children (Children and Self columns) or by self",
      "  t               zoom into the selected entry's thread (t again: zoom out)",
      "  p               zoom into the selected entry's process (p again: zoom out)",
      "  d               zoom into the selected entry's object (d again: zoom out)",
      "  Esc             leave the call graph, else zoom out",
      "  h, ?            this help",
      "  q, Ctrl-C       quit",
      "",
      "Each refresh shows the samples of the last interval. Press any key to go back.",
  };
}

void TopView::update(Interval interval) {
  interval_ = std::move(interval);
  ++refreshes_;
  recompute();
}

// The table of the first event; the selection stays on its entry once the
// user has moved it, else it is the top row.
void TopView::recompute() {
  reports_ = report::compute_report(interval_.profile, options_);
  const auto* t = table();
  if (!t || t->entries.empty()) {
    selected_ = 0;
    return;
  }
  if (selection_known_) {
    auto it = std::find_if(t->entries.begin(), t->entries.end(), [&](const auto& e) { return e.key == selected_key_; });
    if (it != t->entries.end()) selected_ = static_cast<size_t>(it - t->entries.begin());
  }
  selected_ = std::min(selected_, t->entries.size() - 1);
  selected_key_ = t->entries[selected_].key;
}

void TopView::move(long by) {
  const auto* t = table();
  if (!t || t->entries.empty()) return;
  long to = std::clamp<long>(static_cast<long>(selected_) + by, 0, static_cast<long>(t->entries.size()) - 1);
  selected_ = static_cast<size_t>(to);
  selected_key_ = t->entries[selected_].key;
  selection_known_ = true;
}

void TopView::zoom(Zoom kind) {
  const auto* t = table();
  const bool out = zoom_ == kind;
  if (!out && (!t || t->entries.empty())) return;
  options_.pids.clear(), options_.tids.clear(), options_.dsos.clear();
  zoom_ = Zoom::kNone;
  zoom_label_.clear();
  if (!out) {
    const report::ReportEntry& e = t->entries[selected_];
    std::string_view comm;
    for (const auto& s : interval_.profile.samples)
      if (s.tid == e.thread_tid) comm = interval_.profile.str(s.comm);
    zoom_ = kind;
    if (kind == Zoom::kThread) {
      options_.tids = {e.thread_tid};
      zoom_label_ = fmt::format("thread {} {}/{}", comm, e.thread_pid, e.thread_tid);
    } else if (kind == Zoom::kProcess) {
      options_.pids = {e.thread_pid};
      zoom_label_ = fmt::format("process {} {}", comm, e.thread_pid);
    } else {
      options_.dsos = {e.dso};
      zoom_label_ = fmt::format("object {}", e.dso);
    }
  }
  selected_ = 0, scroll_ = 0;
  selection_known_ = false;
  recompute();
}

bool TopView::on_key(const KeyPress& k) {
  if (mode_ == Mode::kHelp) {
    if (k.key == Key::kQuit || (k.key == Key::kChar && k.ch == 'q')) return false;
    mode_ = Mode::kTable;
    return true;
  }
  const long page = 10;
  switch (k.key) {
    case Key::kQuit: return false;
    case Key::kUp: move(-1); break;
    case Key::kDown: move(1); break;
    case Key::kPageUp: move(-page); break;
    case Key::kPageDown: move(page); break;
    case Key::kHome: move(-(1L << 30)); break;
    case Key::kEnd: move(1L << 30); break;
    case Key::kEnter: mode_ = mode_ == Mode::kCallGraph ? Mode::kTable : Mode::kCallGraph; break;
    case Key::kEscape:
      if (mode_ == Mode::kCallGraph) mode_ = Mode::kTable;
      else if (zoom_ != Zoom::kNone) zoom(zoom_);
      break;
    case Key::kChar:
      switch (k.ch) {
        case 'q': return false;
        case 'k': move(-1); break;
        case 'j': move(1); break;
        case 'g': mode_ = mode_ == Mode::kCallGraph ? Mode::kTable : Mode::kCallGraph; break;
        case 'c':
          options_.children = !options_.children;
          recompute();
          break;
        case 't': zoom(Zoom::kThread); break;
        case 'p': zoom(Zoom::kProcess); break;
        case 'd': zoom(Zoom::kDso); break;
        case 'h':
        case '?': mode_ = Mode::kHelp; break;
        default: break;
      }
      break;
  }
  return true;
}

std::string TopView::header() const {
  const auto* t = table();
  return fmt::format("sonde top #{} - {} at {}, {}: {} samples, {} lost, refresh every {:g} s{}", refreshes_,
                     settings_.event, settings_.rate, settings_.target, t ? t->samples : 0, interval_.lost,
                     settings_.delay_seconds, interval_.ended ? " (the recording ended)" : "");
}

std::string TopView::status() const {
  std::string s = options_.children ? "Sort: children." : "Sort: self.";
  if (zoom_ != Zoom::kNone) {
    char key = zoom_ == Zoom::kThread ? 't' : zoom_ == Zoom::kProcess ? 'p' : 'd';
    s += fmt::format("  Zoomed into {} ({} again: zoom out).", zoom_label_, key);
  }
  return s + "  ? help, q quit";
}

void TopView::table_lines(Screen& out, size_t rows) {
  const auto* t = table();
  if (!t || t->entries.empty()) {
    out.lines.push_back(interval_.profile.samples.empty() ? "  (no samples in this interval)" : "  (no entries)");
    return;
  }
  const report::TableLayout layout = report::table_layout(t->entries);
  out.lines.push_back("  " + report::table_header(options_, layout));
  const size_t room = rows > kTableTop ? rows - kTableTop : 1;
  if (selected_ < scroll_) scroll_ = selected_;
  if (selected_ >= scroll_ + room) scroll_ = selected_ + 1 - room;
  for (size_t i = scroll_; i < t->entries.size() && i < scroll_ + room; ++i) {
    if (i == selected_) out.highlight = static_cast<int>(out.lines.size());
    out.lines.push_back(row_text(options_, t->entries[i], layout));
  }
}

void TopView::graph_lines(Screen& out) {
  const auto* t = table();
  if (!t || t->entries.empty()) {
    out.lines.push_back("  (no entry selected)");
    return;
  }
  const report::ReportEntry& e = t->entries[selected_];
  out.lines.push_back(fmt::format("Call graph of {} [{}], the entry first, toward its callers (Enter, g or Esc: back)",
                                  e.sym, e.dso));
  out.lines.push_back("");
  out.lines.push_back(row_text(options_, e, report::table_layout(t->entries)));
  std::string graph = report::format_call_graph(interval_.profile, options_, 0, *t, e);
  if (graph.find_first_not_of('\n') == std::string::npos) {
    out.lines.push_back("  (no callers: sonde top -g records call chains)");
    return;
  }
  size_t pos = 0;
  while (pos < graph.size()) {
    size_t nl = graph.find('\n', pos);
    if (nl == std::string::npos) nl = graph.size();
    out.lines.push_back(graph.substr(pos, nl - pos));
    pos = nl + 1;
  }
}

Screen TopView::screen(size_t rows, size_t cols) {
  Screen s;
  s.lines.push_back(header());
  if (mode_ == Mode::kHelp) {
    s.lines.push_back("");
    for (auto& l : help_lines()) s.lines.push_back(l);
  } else {
    s.lines.push_back(status());
    s.lines.push_back("");
    if (mode_ == Mode::kCallGraph) graph_lines(s);
    else table_lines(s, rows);
  }
  if (s.lines.size() > rows) s.lines.resize(rows);
  for (auto& l : s.lines) l = cut(std::move(l), cols);
  return s;
}

std::string TopView::stdio_text() const {
  std::string out = header() + '\n';
  out += std::string(std::min<size_t>(out.size() - 1, 100), '-') + '\n';
  const auto* t = table();
  if (t && !t->entries.empty()) {
    const report::TableLayout layout = report::table_layout(t->entries);
    out += "  " + report::table_header(options_, layout) + '\n';
    for (size_t i = 0; i < t->entries.size() && i < settings_.stdio_entries; ++i)
      out += row_text(options_, t->entries[i], layout) + '\n';
  } else {
    out += "  (no samples in this interval)\n";
  }
  return out + '\n';
}

}  // namespace sonde::top
