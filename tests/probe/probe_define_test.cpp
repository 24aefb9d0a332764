// `sonde probe` definitions against perf probe 6.1 on the same binary:
// -D lines, the lines written to uprobe_events, -l, -d, -f.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "probe/probe_test_env.h"

using namespace sonde::test;

namespace {

std::string loop_point() {
  int decl = ProbeFixture::source_line("int main(int argc");
  int line = ProbeFixture::source_line("sum += r + s;");
  return "main:" + std::to_string(line - decl);
}

// Definitions of every kind the fixture has.
std::vector<std::string> definitions() {
  return {"handle_request",
          "handle_request req flags",
          "handle_request req->id req->size req->name:string flags",
          "x=handle_request id=req->id:x32 %di",
          "handle_request%return $retval",
          "handle_request%return r=$retval:s64",
          "handle_request+4",
          "scale value factor",
          "scale $params",
          "twice x",
          loop_point() + " i sum",
          "probe_args.c:" + std::to_string(ProbeFixture::source_line("sum += r + s;")) + " i",
          "main argc a0=argv[0] a1=argv[1]:string",
          // ;PTN lazy line patterns: every address perf gives the matching lines
          "main;sum+=*",
          "main;*\"loop* i sum",
          "handle_request;*strlen* flags",
          "probe_args.c;*twice(*",
          "L=scale;* value"};
}

class ProbeDefine : public ::testing::TestWithParam<const char*> {};

INSTANTIATE_TEST_SUITE_P(Opt, ProbeDefine, ::testing::Values("-O0", "-O2"),
                         [](const auto& info) { return std::string(info.param + 1); });

}  // namespace

TEST_P(ProbeDefine, DefinitionsEqualPerfProbeD) {
  TempDir dir;
  ProbeFixture bin(dir, GetParam());
  ASSERT_TRUE(bin.ok());
  for (const auto& def : definitions()) {
    auto theirs = perf_probe("-x " + quoted(bin.path()) + " -D " + quoted(def) + " 2>/dev/null");
    auto ours = sonde_probe("-x " + quoted(bin.path()) + " -D " + quoted(def));
    EXPECT_EQ(ours.exit_code == 0, theirs.exit_code == 0) << def << "\n" << ours.err;
    EXPECT_EQ(ours.out, theirs.out) << def << "\n" << ours.err;
  }
  EXPECT_TRUE(bin.events().empty());  // -D defines nothing
}

// sonde defines on one copy of the fixture, perf on another (the same
// bytes under another name), so both are defined at once; lines compare
// with the copy's path and group swapped, perf's collision suffixes off.
std::string as_copy(std::string line, const ProbeFixture& from, const ProbeFixture& to) {
  for (const auto& [a, b] : {std::pair{from.path(), to.path()}, std::pair{from.group(), to.group()}})
    for (size_t at = line.find(a); at != std::string::npos; at = line.find(a, at + b.size())) line.replace(at, a.size(), b);
  return line;
}

TEST_P(ProbeDefine, AddedEventsEqualPerfsAndDeleteRemovesThem) {
  TempDir dir;
  ProbeFixture ours_bin(dir, GetParam()), perf_bin(dir, GetParam());
  ASSERT_TRUE(ours_bin.ok() && perf_bin.ok());
  for (const auto& def : definitions()) {
    if (def.starts_with("twice") && GetParam() == std::string("-O2")) continue;  // inlined away
    auto ours = sonde_probe("-q -x " + quoted(ours_bin.path()) + " " + quoted(def));
    ASSERT_EQ(ours.exit_code, 0) << def << "\n" << ours.err;
    auto theirs = perf_probe("-q -f -x " + quoted(perf_bin.path()) + " " + quoted(def));
    ASSERT_EQ(theirs.exit_code, 0) << def << "\n" << theirs.err;
    std::vector<std::string> ours_lines, perf_lines;
    for (const auto& l : ours_bin.events()) ours_lines.push_back(as_copy(l, ours_bin, perf_bin));
    for (const auto& l : perf_bin.events()) perf_lines.push_back(without_perf_suffixes(l));
    ASSERT_FALSE(ours_lines.empty()) << def;
    EXPECT_EQ(ours_lines, perf_lines) << def;
    auto del = sonde_probe("-q -d " + quoted(ours_bin.group() + ":*"));
    EXPECT_EQ(del.exit_code, 0) << del.err;
    EXPECT_TRUE(ours_bin.events().empty()) << def;
    perf_bin.delete_events();
  }
}

TEST(ProbeList, ListsLikePerfProbeL) {
  TempDir dir;
  ProbeFixture bin(dir, "-O0");
  ASSERT_TRUE(bin.ok());
  for (const char* def : {"handle_request req->id req->name:string flags", "scale%return $retval", "twice"}) {
    auto r = sonde_probe("-q -x " + quoted(bin.path()) + " " + quoted(def));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  auto ours = sonde_probe("-l " + quoted(bin.group() + ":*"));
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto theirs = perf_probe("-l " + quoted(bin.group() + ":*") + " 2>/dev/null");
  // perf names the source as its line table writes it (relative here), sonde
  // as libdw gives it (joined with the compilation directory).
  auto without_source = [](const std::string& text) {
    std::string out;
    for (auto l : lines(text)) {
      size_t at = l.find('@'), in = l.find(" in ");
      out += (at != std::string::npos && in != std::string::npos ? l.erase(at, in - at) : l) + "\n";
    }
    return out;
  };
  EXPECT_EQ(without_source(ours.out), without_source(theirs.out));
  EXPECT_EQ(count_lines_with(ours.out, bin.group() + ":twice "), 3u) << ours.out;
  EXPECT_EQ(count_lines_with(ours.out, "(on main:"), 3u) << ours.out;  // inlined copies: their call lines
  EXPECT_NE(ours.out.find(bin.group() + ":handle_request (on handle_request:1@"), std::string::npos) << ours.out;
}

TEST(ProbeList, ForceAddsANumberedEventAndDeleteTakesGlobs) {
  TempDir dir;
  ProbeFixture bin(dir, "-O2");
  ASSERT_TRUE(bin.ok());
  std::string x = "-x " + quoted(bin.path()) + " ";
  ASSERT_EQ(sonde_probe("-q " + x + "scale").exit_code, 0);
  auto again = sonde_probe(x + "scale");
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("event " + bin.event("scale") + " already exists"), std::string::npos) << again.err;
  auto forced = sonde_probe(x + "-f scale");
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_NE(forced.err.find(bin.event("scale_1")), std::string::npos) << forced.err;
  EXPECT_EQ(bin.events().size(), 2u);
  auto del = sonde_probe("-d " + quoted(bin.event("scale_*")));
  EXPECT_EQ(del.exit_code, 0) << del.err;
  EXPECT_EQ(del.err, "Removed event: " + bin.event("scale_1") + "\n");
  EXPECT_EQ(bin.events().size(), 1u);
  auto none = sonde_probe("-d " + quoted(bin.event("nothing*")));
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no uprobe event matches"), std::string::npos) << none.err;
}

TEST_P(ProbeDefine, VarsLinesAndFuncsListLikePerf) {
  TempDir dir;
  ProbeFixture bin(dir, GetParam());
  ASSERT_TRUE(bin.ok());
  std::string x = "-x " + quoted(bin.path()) + " ";
  for (const std::string& point : {std::string("handle_request"), std::string("scale"), loop_point(), std::string("main")}) {
    auto ours = sonde_probe(x + "-V " + quoted(point));
    auto theirs = perf_probe(x + "-V " + quoted(point) + " 2>/dev/null");
    EXPECT_EQ(ours.exit_code, 0) << ours.err;
    EXPECT_EQ(ours.out, theirs.out) << point;
  }
  // -L: perf's line ranges, function-relative and absolute, byte for byte.
  const int decl = ProbeFixture::source_line("long handle_request(struct request *req");
  for (const std::string& range :
       {std::string("handle_request"), std::string("handle_request:1-2"), std::string("main:3-5"), std::string("main"),
        fmt::format("probe_args.c:{}-{}", decl - 1, decl + 4), fmt::format("probe_args.c:{}+2", decl),
        fmt::format("probe_args.c:{}", decl + 19)}) {
    auto ours = sonde_probe(x + "-L " + quoted(range));
    ASSERT_EQ(ours.exit_code, 0) << range << ": " << ours.err;
    EXPECT_EQ(ours.out, perf_probe(x + "-L " + quoted(range) + " 2>/dev/null").out) << range;
  }
  EXPECT_NE(sonde_probe(x + "-L handle_request").out.find("      0  __attribute__((noinline)) long handle_request("),
            std::string::npos);
  // -F: function symbols (perf lists data symbols too: only the functions are compared).
  auto funcs = sonde_probe(x + "-F");
  ASSERT_EQ(funcs.exit_code, 0) << funcs.err;
  auto perf_funcs = perf_probe(x + "-F 2>/dev/null").out;
  for (const auto& f : lines(funcs.out)) EXPECT_NE(perf_funcs.find(f + "\n"), std::string::npos) << f;
  EXPECT_NE(funcs.out.find("handle_request\n"), std::string::npos);
  EXPECT_EQ(sonde_probe(x + "-F 'h*'").out, "handle_request\n");
}

// perf's record+probe_libc_inet_pton.sh: inet_pton is an alias DWARF does
// not name (__inet_pton); perf and sonde take the symbol table then.
TEST(ProbeSymbols, AliasDwarfDoesNotNameComesFromTheSymbolTable) {
  auto libc = sh("grep -w libc /proc/self/maps | head -1 | sed -r 's/.*[[:space:]](\\/.*)/\\1/g'");
  ASSERT_FALSE(libc.out.empty());
  std::string path = libc.out.substr(0, libc.out.find('\n'));
  auto ours = sonde_probe("-x " + sonde::test::quoted(path) + " -D inet_pton");
  auto theirs = perf_probe("-x " + sonde::test::quoted(path) + " -D inet_pton 2>/dev/null");
  EXPECT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(ours.out, theirs.out);
  EXPECT_NE(ours.out.find("p:probe_libc/inet_pton "), std::string::npos) << ours.out;
}
