// What `sonde top` shows, apart from any terminal: the table of the last
// interval's hottest entries (the report's rows, report::ReportView), a
// selection, the zoom and sort state, the call graph of the selected entry
// and the key help. It turns keys into state and state into lines of text;
// terminal.h draws them, and the batch mode prints stdio_text().
//
// Keys (help_lines() is the same list):
//   Up/Down, k/j       move the selection (PgUp/PgDn, Home/End by pages)
//   Enter, g           the call graph of the selected entry; again (or Esc) back
//   c                  sort by children (Children and Self columns) or self
//   t                  zoom into the selected entry's thread; again: zoom out
//   p                  zoom into the selected entry's process; again: zoom out
//   d                  zoom into the selected entry's object (DSO); again: zoom out
//   Tab                the next event's table (with several -e)
//   Esc                leave the call graph or help, else zoom out
//   h, ?               this help; any key goes back
//   q, Ctrl-C          quit
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "report/report_view.h"
#include "top/keys.h"
#include "top/live_session.h"

namespace sonde::top {

struct ViewSettings {
  std::string sort = "dso,sym";  // perf top's default (report's --sort keys)
  bool children = false;       // sort by (and show) children first
  std::string event = "cpu-clock";
  std::string rate;            // "4000 Hz", for the header
  std::string target;          // "all CPUs", "pid 123"
  double delay_seconds = 1;
  size_t stdio_entries = 40;   // rows per table in the batch mode
};

enum class Mode { kTable, kCallGraph, kHelp };

// A screen of text: `highlight` is the index of the selected line, or -1.
struct Screen {
  std::vector<std::string> lines;
  int highlight = -1;
};

class TopView {
 public:
  explicit TopView(ViewSettings settings);

  // The next interval's data.
  void update(Interval interval);
  // Applies one key; false when it asks to quit.
  bool on_key(const KeyPress& key);
  // The terminal's screen, `rows` x `cols` (lines cut at `cols`).
  Screen screen(size_t rows, size_t cols);
  // The batch mode's text for the current interval: header, column names,
  // rows, and an empty line.
  std::string stdio_text() const;

  Mode mode() const { return mode_; }
  static std::vector<std::string> help_lines();

 private:
  enum class Zoom { kNone, kThread, kProcess, kDso };
  void recompute();
  void zoom(Zoom kind);
  void move(long by);
  void next_event();
  // The shown event's rows (report_'s index, or -1 when it has none in this
  // interval) and the rows themselves, or null.
  int table_index() const;
  const report::RowSet* table() const { return table_index() < 0 ? nullptr : &report_->rows(size_t(table_index())); }
  std::string event_label() const;
  std::string recorded_events() const;
  const report::HistEntry& selected() const { return *table()->shown[selected_]; }
  std::string header(bool interactive = true) const;
  std::string status() const;
  void table_lines(Screen& out, size_t rows);
  void graph_lines(Screen& out);

  ViewSettings settings_;
  Interval interval_;
  report::ReportOptions options_;
  std::unique_ptr<report::ReportView> report_;
  uint64_t refreshes_ = 0;  // the header's #N
  uint32_t event_ = 0;       // the event shown (Profile event index; Tab: the next)
  Mode mode_ = Mode::kTable;
  size_t selected_ = 0, scroll_ = 0;
  report::HistKey selected_key_;
  bool selection_known_ = false;
  Zoom zoom_ = Zoom::kNone;
  std::string zoom_label_;  // "thread hot_loop 123/124"
};

}  // namespace sonde::top
