// --inline: functions inlined by the compiler appear in report call graphs
// and in script frames, from DWARF; without it they do not.
#include <gtest/gtest.h>

#include "support/test_support.h"

using namespace sonde::test;

TEST(Inline, InlinedFunctionAppearsInReportCallGraphAndScriptOnlyWithInline) {
  TempDir dir;
  std::string bin = dir / "inline_hot";
  ASSERT_TRUE(compile_fixture("inline_hot.c", bin, "-O2"));
  auto rec = sh(sonde_bin() + " record -q -N -g -o " + (dir / "r.data") + " -- " + bin + " 0.3");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;

  auto plain = run({sonde_bin(), "report", "--no-children", "-G", "-i", dir / "r.data"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.out.find("[.] outer_hot"), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("mix_inlined"), std::string::npos) << plain.out;

  auto inl = run({sonde_bin(), "report", "--no-children", "-G", "--inline", "-i", dir / "r.data"});
  ASSERT_EQ(inl.exit_code, 0) << inl.err;
  // Caller order: main, then outer_hot, then the function inlined into it.
  auto at_main = inl.out.find("main");
  auto at_outer = inl.out.find("outer_hot", at_main == std::string::npos ? 0 : at_main);
  auto at_inlined = inl.out.find("mix_inlined", at_outer == std::string::npos ? 0 : at_outer);
  EXPECT_NE(at_inlined, std::string::npos) << inl.out;

  auto script = run({sonde_bin(), "script", "--inline", "-i", dir / "r.data"});
  ASSERT_EQ(script.exit_code, 0) << script.err;
  EXPECT_GT(count_lines_with(script.out, " mix_inlined ("), 10u);
  auto script_plain = run({sonde_bin(), "script", "-i", dir / "r.data"});
  EXPECT_EQ(count_lines_with(script_plain.out, "mix_inlined"), 0u);
}

TEST(Inline, SortBySourceLineNamesTheHotLine) {
  TempDir dir;
  std::string bin = dir / "inline_hot";
  ASSERT_TRUE(compile_fixture("inline_hot.c", bin, "-O2"));
  auto rec = sh(sonde_bin() + " record -q -N -o " + (dir / "r.data") + " -- " + bin + " 0.3");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto r = run({sonde_bin(), "report", "--no-children", "--sort", "srcline", "-i", dir / "r.data"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The hottest source line is in inline_hot.c (the inlined loop body or its call site).
  auto first_row = r.out.find("inline_hot.c:");
  EXPECT_NE(first_row, std::string::npos) << r.out;
}
