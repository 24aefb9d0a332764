// The stat printer on counts no VM here produces: multiplexed counters
// (scaled, with perf's percentage column), a key where one CPU did not
// count, and the -r footer's precision.
#include <gtest/gtest.h>

#include <cstdio>

#include "stat/aggregate.h"
#include "stat/stat_events.h"
#include "stat/stat_printer.h"

namespace sonde::stat {
namespace {

std::string print(const CountTable& t, AggrMode mode, OutputStyle style) {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  PrintConfig c;
  c.style = style;
  StatPrinter p(f, c);
  p.counters(t, aggregate(t, mode, true, "/nonexistent"), 1e9, {}, nullptr);
  std::fclose(f);
  std::string s(buf, len);
  free(buf);
  return s;
}

CountTable two_cpu_table() {
  CountTable t;
  t.events = parse_stat_events({"cs"});
  t.cpus = {0, 1};
  t.reset_values();
  return t;
}

TEST(StatLayout, MultiplexedCountsAreScaledAndShowTheirShare) {
  CountTable t = two_cpu_table();
  t.at(0, 0, 0) = {100, 1000, 500};  // ran half the time: 200
  t.at(0, 1, 0) = {50, 1000, 500};   // 100
  EXPECT_EQ(print(t, AggrMode::Global, OutputStyle::Std),
            "               300      cs                                                                   (50.00%)\n");
  EXPECT_EQ(print(t, AggrMode::Global, OutputStyle::Csv), "300,,cs,1000,50.00,,\n");
}

TEST(StatLayout, AKeyWithACpuThatDidNotCountIsNotCounted) {
  CountTable t = two_cpu_table();
  t.at(0, 0, 0) = {0, 0, 0};
  t.at(0, 1, 0) = {7, 10, 10};
  EXPECT_EQ(print(t, AggrMode::Socket, OutputStyle::Csv), "S0,1,<not counted>,,cs,0,100.00,,\n");
  EXPECT_EQ(print(t, AggrMode::None, OutputStyle::Csv), "CPU0,<not counted>,,cs,0,100.00,,\nCPU1,7,,cs,10,100.00,,\n");
}

TEST(StatLayout, FooterPrecisionFollowsTheStddev) {
  EXPECT_EQ(elapsed_precision(0.0000555), 5);
  EXPECT_EQ(elapsed_precision(0.05), 2);
  EXPECT_EQ(elapsed_precision(2.0), 0);
}

}  // namespace
}  // namespace sonde::stat
