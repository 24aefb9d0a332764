// sonde top's keys and view without a terminal or a recording: escape
// sequences decoded, and a hand-made interval's table, zoom, sort and call
// graph as the screen shows them.
#include <gtest/gtest.h>

#include "support/synthetic_profile.h"
#include "top/keys.h"
#include "top/top_view.h"

using namespace sonde;
using namespace sonde::top;

namespace {

TEST(TopKeys, DecodesBytesArrowsPagesAndLoneEscape) {
  std::vector<KeyPress> k;
  decode_keys("j\x1b[A\x1b[B\x1bOA\x1b[5~\x1b[6~\r\x03\x1b", k);
  std::vector<KeyPress> want{{Key::kChar, 'j'}, {Key::kUp}, {Key::kDown}, {Key::kUp}, {Key::kPageUp},
                             {Key::kPageDown}, {Key::kEnter}, {Key::kQuit}, {Key::kEscape}};
  EXPECT_EQ(k, want);
  k.clear();
  decode_keys("\x1b[99~q", k);  // an unknown sequence is skipped whole
  EXPECT_EQ(k, (std::vector<KeyPress>{{Key::kChar, 'q'}}));
}

// main -> caller -> hot in /bin/app: thread app 10/11 samples hot 3 times,
// thread other 20/20 samples caller once.
Interval sample_interval() {
  Interval iv;
  analysis::Profile& p = iv.profile;
  p.mappings.push_back({0x1000, 0x2000, 0, p.intern("/bin/app"), 0, false});
  for (const char* name : {"hot", "caller", "main"}) sonde::test::add_function_location(p, name, 0);
  p.nodes = {{UINT32_MAX, 2, 0}, {0, 1, 1}, {1, 0, 2}};
  p.events.push_back({"cpu-clock", sonde::format::EventKind::kCpuTime, 4, 400});
  p.samples.push_back({0, 10, 11, 0, p.intern("app"), 2, 3, 300, 0});
  p.samples.push_back({0, 20, 20, 0, p.intern("other"), 1, 1, 100, 0});
  iv.samples = 4;
  return iv;
}

ViewSettings settings() {
  ViewSettings s;
  s.rate = "4000 Hz";
  s.target = "all CPUs";
  return s;
}

std::string text(TopView& v) {
  std::string out;
  for (const auto& l : v.screen(50, 200).lines) out += l + "\n";
  return out;
}

TEST(TopView, TableHeaderAndSelection) {
  TopView v(settings());
  v.update(sample_interval());
  Screen s = v.screen(50, 200);
  ASSERT_GE(s.lines.size(), 6u);
  EXPECT_EQ(s.lines[0], "sonde top #1 - cpu-clock at 4000 Hz, all CPUs: 4 samples, 0 lost, refresh every 1 s");
  EXPECT_EQ(s.lines[1], "Sort: self.  ? help, q quit");
  EXPECT_EQ(s.lines[3], "  Overhead  Shared Object  Symbol");
  EXPECT_EQ(s.lines[4], "    75.00%  app            [.] hot");
  EXPECT_EQ(s.lines[5], "    25.00%  app            [.] caller");
  EXPECT_EQ(s.highlight, 4);
  v.on_key({Key::kChar, 'j'});
  EXPECT_EQ(v.screen(50, 200).highlight, 5);
  v.on_key({Key::kDown});  // stays on the last row
  EXPECT_EQ(v.screen(50, 200).highlight, 5);
  // The selection follows its entry across refreshes.
  v.update(sample_interval());
  EXPECT_EQ(v.screen(50, 200).highlight, 5);
}

TEST(TopView, ZoomIntoThreadProcessAndObject) {
  TopView v(settings());
  v.update(sample_interval());
  v.on_key({Key::kChar, 't'});
  std::string s = text(v);
  EXPECT_NE(s.find("Zoomed into thread app 10/11 (t again: zoom out)."), std::string::npos) << s;
  // As in perf, the other rows go and the total stays the interval's.
  EXPECT_NE(s.find("    75.00%  app            [.] hot"), std::string::npos) << s;
  EXPECT_EQ(s.find("caller"), std::string::npos) << s;
  v.on_key({Key::kChar, 't'});
  s = text(v);
  EXPECT_EQ(s.find("Zoomed"), std::string::npos) << s;
  v.on_key({Key::kChar, 'j'});
  v.on_key({Key::kChar, 'p'});
  s = text(v);
  EXPECT_NE(s.find("Zoomed into process other 20 (p again: zoom out)."), std::string::npos) << s;
  v.on_key({Key::kEscape});
  v.on_key({Key::kChar, 'd'});
  EXPECT_NE(text(v).find("Zoomed into object app (d again: zoom out)."), std::string::npos);
}

TEST(TopView, ChildrenAndCallGraph) {
  TopView v(settings());
  v.update(sample_interval());
  v.on_key({Key::kChar, 'c'});
  std::string s = text(v);
  EXPECT_NE(s.find("Sort: children."), std::string::npos) << s;
  EXPECT_NE(s.find("  Children      Self  Shared Object  Symbol"), std::string::npos) << s;
  EXPECT_NE(s.find("   100.00%     0.00%  app            [.] main"), std::string::npos) << s;
  v.on_key({Key::kChar, 'c'});
  v.on_key({Key::kEnter});
  EXPECT_EQ(v.mode(), Mode::kCallGraph);
  s = text(v);
  EXPECT_NE(s.find("Call graph of hot [app], the entry first, toward its callers"), std::string::npos) << s;
  EXPECT_NE(s.find("---hot\n               caller\n               main"), std::string::npos) << s;
  EXPECT_NE(s.find("caller"), std::string::npos) << s;
  EXPECT_NE(s.find("main"), std::string::npos) << s;
  v.on_key({Key::kChar, 'g'});
  EXPECT_EQ(v.mode(), Mode::kTable);
  v.on_key({Key::kChar, '?'});
  EXPECT_EQ(v.mode(), Mode::kHelp);
  EXPECT_NE(text(v).find("zoom into the selected entry's thread"), std::string::npos);
  EXPECT_TRUE(v.on_key({Key::kChar, 'x'}));
  EXPECT_EQ(v.mode(), Mode::kTable);
  EXPECT_FALSE(v.on_key({Key::kChar, 'q'}));
  EXPECT_FALSE(v.on_key({Key::kQuit}));
}

TEST(TopView, StdioTextIsHeaderRuleColumnsRows) {
  ViewSettings s = settings();
  s.stdio_entries = 1;
  TopView v(s);
  v.update(sample_interval());
  std::string t = v.stdio_text();
  auto ls = std::vector<std::string>();
  size_t pos = 0;
  while (pos < t.size()) {
    size_t nl = t.find('\n', pos);
    ls.push_back(t.substr(pos, nl - pos));
    pos = nl + 1;
  }
  ASSERT_EQ(ls.size(), 5u) << t;
  EXPECT_EQ(ls[0].rfind("sonde top #1 - ", 0), 0u);
  EXPECT_EQ(ls[1].find_first_not_of('-'), std::string::npos);
  EXPECT_EQ(ls[2], "  Overhead  Shared Object  Symbol");
  EXPECT_EQ(ls[3], "    75.00%  app            [.] hot");
  EXPECT_EQ(ls[4], "");
}

// A second event (page-faults, all in caller): Tab shows its table and
// names it in the header; Tab again comes back. The batch mode prints both
// tables, each named.
Interval two_event_interval() {
  Interval iv = sample_interval();
  analysis::Profile& p = iv.profile;
  p.events.push_back({"page-faults", sonde::format::EventKind::kCount, 5, 5});
  p.samples.push_back({1, 10, 11, 0, p.intern("app"), 1, 5, 5, 0});
  return iv;
}

TEST(TopView, TabShowsTheNextEventsTable) {
  ViewSettings s = settings();
  s.event = "cpu-clock,page-faults";
  TopView v(s);
  v.update(two_event_interval());
  Screen first = v.screen(50, 200);
  EXPECT_EQ(first.lines[0].rfind("sonde top #1 - cpu-clock (event 1/2, Tab: next) at 4000 Hz", 0), 0u) << first.lines[0];
  EXPECT_EQ(first.lines[4], "    75.00%  app            [.] hot");
  v.on_key({Key::kChar, '\t'});
  Screen second = v.screen(50, 200);
  EXPECT_EQ(second.lines[0].rfind("sonde top #1 - page-faults (event 2/2, Tab: next) at 4000 Hz, all CPUs: 5 samples", 0), 0u)
      << second.lines[0];
  EXPECT_EQ(second.lines[4], "   100.00%  app            [.] caller");
  EXPECT_EQ(second.highlight, 4);
  v.on_key({Key::kChar, '\t'});
  EXPECT_EQ(v.screen(50, 200).lines[4], "    75.00%  app            [.] hot");

  std::string t = v.stdio_text();
  EXPECT_EQ(t.rfind("sonde top #1 - cpu-clock,page-faults at 4000 Hz", 0), 0u) << t;
  const size_t cpu = t.find("  event cpu-clock:\n  Overhead  Shared Object  Symbol\n    75.00%  app            [.] hot\n");
  const size_t faults = t.find("  event page-faults:\n  Overhead  Shared Object  Symbol\n   100.00%  app            [.] caller\n");
  EXPECT_NE(cpu, std::string::npos) << t;
  EXPECT_NE(faults, std::string::npos) << t;
  EXPECT_LT(cpu, faults);
}

}  // namespace
