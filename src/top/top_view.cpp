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

}  // namespace

TopView::TopView(ViewSettings settings) : settings_(std::move(settings)) {
  options_.children = settings_.children;
  options_.layout = report::layout_fields({std::nullopt, settings_.sort, options_.children, false});
  options_.call_graph = true;  // the rows keep their chains for the call-graph screen
  options_.graph.order = report::GraphOrder::kCallee;  // the entry first, toward its callers: perf top's order
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
      "  Tab             the next event's table (with several -e)",
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
  report_.reset();  // it points into the previous interval's profile
  report_ = std::make_unique<report::ReportView>(interval_.profile, options_);
  const auto* t = table();
  if (!t || t->shown.empty()) {
    selected_ = 0;
    return;
  }
  if (selection_known_) {
    auto it = std::find_if(t->shown.begin(), t->shown.end(), [&](const auto* e) { return e->key == selected_key_; });
    if (it != t->shown.end()) selected_ = static_cast<size_t>(it - t->shown.begin());
  }
  selected_ = std::min(selected_, t->shown.size() - 1);
  selected_key_ = selected().key;
}

void TopView::move(long by) {
  const auto* t = table();
  if (!t || t->shown.empty()) return;
  long to = std::clamp<long>(static_cast<long>(selected_) + by, 0, static_cast<long>(t->shown.size()) - 1);
  selected_ = static_cast<size_t>(to);
  selected_key_ = selected().key;
  selection_known_ = true;
}

void TopView::zoom(Zoom kind) {
  const auto* t = table();
  const bool out = zoom_ == kind;
  if (!out && (!t || t->shown.empty())) return;
  options_.pids.clear(), options_.tids.clear(), options_.dsos.clear();
  zoom_ = Zoom::kNone;
  zoom_label_.clear();
  if (!out) {
    const report::HistEntry& e = selected();
    std::string_view comm;
    for (const auto& s : interval_.profile.samples)
      if (s.tid == e.tid) comm = interval_.profile.str(s.comm);
    zoom_ = kind;
    if (kind == Zoom::kThread) {
      options_.tids = {e.tid};
      zoom_label_ = fmt::format("thread {} {}/{}", comm, e.pid, e.tid);
    } else if (kind == Zoom::kProcess) {
      options_.pids = {e.pid};
      zoom_label_ = fmt::format("process {} {}", comm, e.pid);
    } else {
      const std::string dso = report::object_name(interval_.profile, e.location, false);
      options_.dsos = {dso};
      zoom_label_ = fmt::format("object {}", dso);
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
          options_.layout = report::layout_fields({std::nullopt, settings_.sort, options_.children, false});
          recompute();
          break;
        case 't': zoom(Zoom::kThread); break;
        case 'p': zoom(Zoom::kProcess); break;
        case 'd': zoom(Zoom::kDso); break;
        case 'h':
        case '?': mode_ = Mode::kHelp; break;
        case '\t': next_event(); break;
        default: break;
      }
      break;
  }
  return true;
}

int TopView::table_index() const {
  if (!report_) return -1;
  for (size_t i = 0; i < report_->events(); ++i)
    if (report_->rows(i).hists->event == event_) return static_cast<int>(i);
  return -1;
}

// The events as recorded (cycles may have fallen back to cpu-clock, as in
// perf top), or as asked before the first interval.
std::string TopView::recorded_events() const {
  std::string names;
  for (const auto& e : interval_.profile.events) {
    if (!names.empty()) names += ',';
    names += e.name;
  }
  return names.empty() ? settings_.event : names;
}

// With several events, the shown one and where it is in the list.
std::string TopView::event_label() const {
  const auto& events = interval_.profile.events;
  if (events.size() < 2 || event_ >= events.size()) return recorded_events();
  return fmt::format("{} (event {}/{}, Tab: next)", events[event_].name, event_ + 1, events.size());
}

void TopView::next_event() {
  const size_t n = interval_.profile.events.size();
  if (n < 2) return;
  event_ = static_cast<uint32_t>((event_ + 1) % n);
  selected_ = 0, scroll_ = 0;
  selection_known_ = false;
  recompute();
}

std::string TopView::header(bool interactive) const {
  const auto* t = table();
  return fmt::format("sonde top #{} - {} at {}, {}: {} samples, {} lost, refresh every {:g} s{}", refreshes_,
                     interactive ? event_label() : recorded_events(), settings_.rate, settings_.target, t ? t->hists->samples : 0, interval_.lost,
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
  if (!t || t->shown.empty()) {
    out.lines.push_back(interval_.profile.samples.empty() ? "  (no samples in this interval)" : "  (no entries)");
    return;
  }
  out.lines.push_back("  " + report_->column_names(size_t(table_index())));
  const size_t room = rows > kTableTop ? rows - kTableTop : 1;
  if (selected_ < scroll_) scroll_ = selected_;
  if (selected_ >= scroll_ + room) scroll_ = selected_ + 1 - room;
  for (size_t i = scroll_; i < t->shown.size() && i < scroll_ + room; ++i) {
    if (i == selected_) out.highlight = static_cast<int>(out.lines.size());
    out.lines.push_back(report_->row_line(size_t(table_index()), *t->shown[i]));
  }
}

void TopView::graph_lines(Screen& out) {
  const auto* t = table();
  if (!t || t->shown.empty()) {
    out.lines.push_back("  (no entry selected)");
    return;
  }
  const report::HistEntry& e = selected();
  out.lines.push_back(fmt::format("Call graph of {} [{}], the entry first, toward its callers (Enter, g or Esc: back)",
                                  report::symbol_name(interval_.profile, e),
                                  report::object_name(interval_.profile, e.location, false)));
  out.lines.push_back("");
  out.lines.push_back(report_->row_line(size_t(table_index()), e));
  std::string graph = report_->call_graph(size_t(table_index()), e);
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

// The batch mode has no Tab: with several events it prints each event's
// table, named, one after the other.
std::string TopView::stdio_text() const {
  std::string out = header(false) + '\n';
  out += std::string(std::min<size_t>(out.size() - 1, 100), '-') + '\n';
  const size_t tables = report_ ? report_->events() : 0;
  const bool several = interval_.profile.events.size() > 1;
  bool any = false;
  for (size_t k = 0; k < tables; ++k) {
    const auto& t = report_->rows(k);
    if (t.shown.empty()) continue;
    any = true;
    if (several) out += fmt::format("  event {}:\n", interval_.profile.events[t.hists->event].name);
    out += "  " + report_->column_names(k) + '\n';
    for (size_t i = 0; i < t.shown.size() && i < settings_.stdio_entries; ++i)
      out += report_->row_line(k, *t.shown[i]) + '\n';
    if (several && k + 1 < tables) out += '\n';
  }
  if (!any) out += "  (no samples in this interval)\n";
  return out + '\n';
}

}  // namespace sonde::top
