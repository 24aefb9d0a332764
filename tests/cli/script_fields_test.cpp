// sonde script -F / -G against perf script -F / -G on the same recording
// (sonde's, with call chains and a tracepoint; and without call chains):
// byte for byte, line for line.
#include <gtest/gtest.h>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

class ScriptFields : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    std::string bin = *dir_ / "hot_loop";
    ASSERT_TRUE(compile_fixture("hot_loop.c", bin));
    // `sh -c` so that an exec tracepoint fires as well as the samples.
    for (auto [name, g] : {std::pair{"chains.data", " -g"}, std::pair{"flat.data", ""}}) {
      auto r = sh(sonde_bin() + " record -q" + g + " -e cpu-clock -e sched:sched_process_exec -o " + (*dir_ / name) +
                  " -- sh -c '" + bin + " 0.3; true'");
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static TempDir* dir_;
};
TempDir* ScriptFields::dir_ = nullptr;

// Lines that differ only because perf 6.1 names a .plt stub "_init" (the
// symbol before it) where sonde names it "NAME@plt" are counted apart.
void expect_same_as_perf(const std::string& data, const std::string& fields, bool hide) {
  std::vector<std::string> ours_argv = {sonde_bin(), "script", "-i", data};
  std::string perf_cmd = "perf script -i " + data;
  if (!fields.empty()) {
    ours_argv.insert(ours_argv.end(), {"-F", fields});
    perf_cmd += " -F " + fields;
  }
  if (hide) {
    ours_argv.push_back("-G");
    perf_cmd += " -G";
  }
  auto ours = run(ours_argv);
  auto perf = sh(perf_cmd + " 2>/dev/null");
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  ASSERT_EQ(perf.exit_code, 0);
  auto o = lines(ours.out), p = lines(perf.out);
  ASSERT_EQ(o.size(), p.size()) << fields << (hide ? " -G" : "");
  ASSERT_GT(o.size(), 100u);
  size_t differ = 0;
  std::string first;
  for (size_t i = 0; i < o.size(); ++i) {
    if (o[i] == p[i]) continue;
    auto plt = o[i].find("@plt"), init = p[i].find(" _init");
    if (plt != std::string::npos && init != std::string::npos && o[i].compare(0, init, p[i], 0, init) == 0) continue;
    if (differ++ == 0) first = "perf:  " + p[i] + "\nsonde: " + o[i];
  }
  EXPECT_EQ(differ, 0u) << "-F " << fields << (hide ? " -G" : "") << ", first:\n" << first;
}

}  // namespace

TEST_F(ScriptFields, EveryCombinationPrintsWhatPerfPrints) {
  for (const char* data : {"chains.data", "flat.data"}) {
    for (const char* fields :
         {"comm,tid,time,event,ip,sym,dso", "comm,pid,tid,cpu,time,period,event,trace,ip,sym,symoff,dso", "ip,sym",
          "comm,ip", "ip", "event,trace", "tid,time", "ip,dso", "comm", "pid,event,ip,sym,symoff"}) {
      for (bool hide : {false, true}) {
        SCOPED_TRACE(std::string(data) + " -F " + fields + (hide ? " -G" : ""));
        expect_same_as_perf(*dir_ / data, fields, hide);
      }
    }
  }
}

// perf's -F +name / -name: changes to the default fields of each event type
// (a tracepoint's defaults print its fields and no address).
TEST_F(ScriptFields, AddAndRemovePrintWhatPerfPrints) {
  for (const char* data : {"chains.data", "flat.data"}) {
    for (const char* fields : {"+period", "-ip", "-time", "+pid", "-period,+pid", "-dso", "-symoff", "-comm,-tid",
                               "-event", "+cpu", "-cpu", "-trace", "+trace", "+ip", "-ip,+sym", "+pid,-tid",
                               "+comm,-ip", "-sym,-symoff"}) {
      SCOPED_TRACE(std::string(data) + " -F " + fields);
      expect_same_as_perf(*dir_ / data, fields, false);
    }
  }
}

// -G alone: perf's default fields, the sampled address on the sample's line.
TEST_F(ScriptFields, HideCallGraphAlonePrintsPerfsDefaultFields) {
  for (const char* data : {"chains.data", "flat.data"}) {
    SCOPED_TRACE(data);
    expect_same_as_perf(*dir_ / data, "", true);
  }
}

TEST_F(ScriptFields, BadFieldsAreUsageErrorsBeforeAnyOutput) {
  std::string data = *dir_ / "chains.data";
  auto unknown = run({sonde_bin(), "script", "-i", data, "-F", "comm,nope"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err,
            "sonde: unknown field 'nope' in -F (fields: comm,pid,tid,cpu,time,period,event,trace,ip,sym,symoff,dso,srcline,srccode,insn,addr)\n");
  EXPECT_EQ(unknown.out, "");
  auto empty = run({sonde_bin(), "script", "-i", data, "-F", "comm,,tid"});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("unknown field ''"), std::string::npos) << empty.err;
  auto mixed = run({sonde_bin(), "script", "-i", data, "-F", "comm", "--no-symbols"});
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_EQ(lines(mixed.err).size(), 1u) << mixed.err;
  EXPECT_EQ(mixed.out, "");
  auto offset_alone = run({sonde_bin(), "script", "-i", data, "-F", "ip,symoff"});
  EXPECT_EQ(offset_alone.exit_code, 2);
  EXPECT_EQ(offset_alone.err, "sonde: -F symoff needs sym\n");
  auto mixed_signs = run({sonde_bin(), "script", "-i", data, "-F", "comm,+period"});
  EXPECT_EQ(mixed_signs.exit_code, 2);
  EXPECT_EQ(mixed_signs.err,
            "sonde: -F 'comm,+period': either name the fields, or add and remove them with +name,-name (not both)\n");
  EXPECT_EQ(mixed_signs.out, "");
  auto unknown_added = run({sonde_bin(), "script", "-i", data, "-F", "+nope"});
  EXPECT_EQ(unknown_added.exit_code, 2);
  EXPECT_EQ(unknown_added.err,
            "sonde: unknown field 'nope' in -F (fields: comm,pid,tid,cpu,time,period,event,trace,ip,sym,symoff,dso,srcline,srccode,insn,addr)\n");
  auto offset_left = run({sonde_bin(), "script", "-i", data, "-F", "-sym"});
  EXPECT_EQ(offset_left.exit_code, 2);
  EXPECT_EQ(offset_left.err, "sonde: -F symoff needs sym\n");
  // A usage error is found before the input is opened.
  auto missing = run({sonde_bin(), "script", "-i", *dir_ / "missing.data", "-F", "bogus"});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
}
