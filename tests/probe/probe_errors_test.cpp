// Bad input to `sonde probe`: one line, exit 2 (usage) or 1 (runtime), and
// nothing left registered in the fixture's group.
#include <gtest/gtest.h>

#include "probe/probe_test_env.h"

using namespace sonde::test;

namespace {

struct BadCase {
  const char* args;  // after -x BIN
  int exit_code;
  const char* message;
};

void expect_refused(const ProbeFixture& bin, const BadCase& c) {
  auto r = sonde_probe("-x " + quoted(bin.path()) + " " + c.args);
  EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.err;
  EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
  EXPECT_EQ(count_lines_with(r.err, "sonde"), 1u) << r.err;  // one line
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_TRUE(bin.events().empty()) << c.args;
}

}  // namespace

TEST(ProbeErrors, NamesThatDoNotExistSayTheNearestOnes) {
  TempDir dir;
  ProbeFixture bin(dir, "-O2");
  ASSERT_TRUE(bin.ok());
  for (const BadCase& c : std::initializer_list<BadCase>{
           {"handle_reqest", 2, "no function 'handle_reqest' in "},
           {"handle_reqest", 2, "(nearest: handle_request"},
           {"'handle_request nosuch'", 2, "no variable 'nosuch' at handle_request (there: req, flags, total)"},
           {"'handle_request req->nosuch'", 2, "has no member 'nosuch' (members: id, size, name)"},
           {"'handle_request req.id'", 2, "req is a pointer, use '->id'"},
           {"'handle_request flags:string'", 2, "cannot be a string"},
           {"'handle_request flags:u7'", 2, "unknown type 'u7'"},
           {"'handle_request $retval'", 2, "$retval is only for %return probes"},
           {"'handle_request:999'", 2, "has no code at line 999"},
           {"'probe_args.c:9999'", 2, "no code for line 9999 of probe_args.c"},
           {"'twice x'", 2, "function 'twice' has no code"},
           {"'scale+4096'", 2, "past the end of scale"},
           {"'handle_request %nosuchreg'", 1, "the kernel refused"},
           {"'handle_request;x*'", 2, "no line of handle_request matching 'x*' has code in "},
       })
    expect_refused(bin, c);
}

TEST(ProbeErrors, OptimizedOutVariableIsARuntimeError) {
  TempDir dir;
  ProbeFixture bin(dir, "-O2");
  ASSERT_TRUE(bin.ok());
  // At the entry `total` is not computed yet: no location there.
  expect_refused(bin, {"'handle_request total'", 1, "'total' has no location at handle_request"});
}

TEST(ProbeErrors, WithoutDebugInfoOnlyFunctionEntries) {
  TempDir dir;
  ProbeFixture bin(dir, "-g0 -O2");
  ASSERT_TRUE(bin.ok());
  expect_refused(bin, {"'handle_request req'", 1, "has no debug info (looked in "});
  auto r = sonde_probe("-x " + quoted(bin.path()) + " 'handle_request req'");
  EXPECT_NE(r.err.find("/usr/lib/debug/.build-id/"), std::string::npos) << r.err;
  // The entry alone comes from the symbol table, as perf does it.
  auto ours = sonde_probe("-x " + quoted(bin.path()) + " -D handle_request");
  auto theirs = perf_probe("-x " + quoted(bin.path()) + " -D handle_request 2>/dev/null");
  EXPECT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(ours.out, theirs.out);
}

TEST(ProbeErrors, StrippedBinaryHasNoFunctions) {
  TempDir dir;
  ProbeFixture bin(dir, "-O2 -s");
  ASSERT_TRUE(bin.ok());
  expect_refused(bin, {"handle_request", 2, "no function 'handle_request' in "});
}

TEST(ProbeErrors, UsageErrorsBeforeAnythingIsRead) {
  for (const char* args : {"", "-x /nonexistent/bin main", "-l -d 'x:*'", "-x /bin/true 'main x=:u8'",
                           "'handle_request'"}) {
    auto r = sonde_probe(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_EQ(count_lines_with(r.err, "sonde"), 1u) << args << "\n" << r.err;
  }
}

namespace {

// `sonde probe ARGS` fails with exit 2, exactly `message` and no output.
void expect_usage_error(const std::string& args, const std::string& message) {
  auto r = sonde_probe(args);
  EXPECT_EQ(r.exit_code, 2) << args;
  EXPECT_EQ(r.err, message) << args;
  EXPECT_TRUE(r.out.empty()) << args;
}

}  // namespace

TEST(ProbeErrors, BadLineRangesAreUsageErrors) {
  TempDir dir;
  ProbeFixture bin(dir, "-O0");
  ASSERT_TRUE(bin.ok());
  const std::string x = "-x " + quoted(bin.path()) + " -L ";
  for (const auto& [range, message] : std::vector<std::pair<std::string, std::string>>{
           {"main:5-2", "sonde: probe: bad line range 'main:5-2': it ends before it starts\n"},
           {"main:x", "sonde: probe: bad line range 'main:x': 'x' is not a line number\n"},
           {"main:3+", "sonde: probe: bad line range 'main:3+': '' is not a line number\n"},
           {"@probe_args.c", "sonde: probe: bad line range '@probe_args.c' (FUNC[@SRC][:START[-END|+COUNT]] or "
                             "SRC[:START[-END|+COUNT]])\n"},
           {"nosuch.c:3", "sonde: probe: no source file 'nosuch.c' with code in " + bin.path() + "\n"}}) {
    expect_usage_error(x + quoted(range), message);
  }
}

// perf 6.1 probes the function's entry when no line matches (sonde refuses).
TEST(ProbeErrors, LazyPatternsThatMatchNothingAreUsageErrors) {
  TempDir dir;
  ProbeFixture bin(dir, "-O0");
  ASSERT_TRUE(bin.ok());
  const std::string x = "-x " + quoted(bin.path()) + " -D ";
  for (const auto& [def, message] : std::vector<std::pair<std::string, std::string>>{
           {"main;nomatch*", "sonde: probe: no line of main matching 'nomatch*' has code in " + bin.path() + "\n"},
           {"main;", "sonde: probe: an empty line pattern in 'main;'\n"},
           {"main:3;x*", "sonde: probe: a line pattern goes with FUNC or SRC alone, not 'main:3;x*'\n"},
           {"main%return;x*", "sonde: probe: %return is only for a function entry, not 'main%return;x*'\n"}}) {
    expect_usage_error(x + quoted(def), message);
  }
  EXPECT_TRUE(bin.events().empty());
}
