// `sonde probe --cache`: definitions in perf's `probes` file of the build-id
// cache, read by perf probe --cache --list, perf's read by sonde, beside the
// SDT entries of `sonde sdt add`.
#include <gtest/gtest.h>

#include <filesystem>

#include "probe/probe_test_env.h"
#include "util/fs.h"

using namespace sonde::test;

namespace {

std::string probes_file(const std::string& root) {
  for (const auto& e : std::filesystem::recursive_directory_iterator(root))
    if (e.path().filename() == "probes") return sonde::read_small_file(e.path()).value_or("");
  return "";
}

const char* const kDefinitions[] = {"handle_request req->id flags", "myev=scale%return $retval"};

}  // namespace

// perf caches on a copy of the fixture (the same bytes under another name);
// the files compare with the copy's path and group swapped and perf's
// collision suffixes off (probe_test_env.h).
TEST(ProbeCache, PerfReadsSondesDefinitionsAndWritesTheSameFile) {
  TempDir dir;
  ProbeFixture bin(dir, "-O2"), perf_bin(dir, "-O2");
  ASSERT_TRUE(bin.ok() && perf_bin.ok());
  std::string ours = dir / "ours", theirs = dir / "theirs";
  for (const char* def : kDefinitions) {
    auto r = sonde_probe("-q --buildid-dir " + sonde::test::quoted(ours) + " --cache -x " +
                         sonde::test::quoted(bin.path()) + " " + sonde::test::quoted(def));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto p = sh("perf --buildid-dir " + sonde::test::quoted(theirs) + " probe -q -f --cache -x " +
                sonde::test::quoted(perf_bin.path()) + " " + sonde::test::quoted(def));
    ASSERT_EQ(p.exit_code, 0) << p.err;
  }
  EXPECT_EQ(bin.events().size(), 2u);  // --cache defines them too, as perf does
  std::string our_file = probes_file(ours);
  for (const auto& [a, b] : {std::pair{bin.path(), perf_bin.path()}, std::pair{bin.group(), perf_bin.group()}})
    for (size_t at = our_file.find(a); at != std::string::npos; at = our_file.find(a, at + b.size()))
      our_file.replace(at, a.size(), b);
  EXPECT_EQ(our_file, without_perf_suffixes(probes_file(theirs)));
  EXPECT_NE(probes_file(ours).find("#handle_request id=req->id flags\np:" + bin.group() + "/handle_request "),
            std::string::npos)
      << probes_file(ours);
  auto perf_list = sh("perf --buildid-dir " + sonde::test::quoted(ours) + " probe --cache --list");
  auto our_list = sonde_probe("--buildid-dir " + sonde::test::quoted(ours) + " --cache --list");
  EXPECT_EQ(our_list.exit_code, 0) << our_list.err;
  EXPECT_EQ(our_list.out, perf_list.out);
  EXPECT_NE(our_list.out.find(bin.group() + ":myev=scale%return $retval\n"), std::string::npos) << our_list.out;
}

TEST(ProbeCache, SondeDefinesPerfsCachedEventsWhereTheBinaryIsNow) {
  TempDir dir;
  ProbeFixture bin(dir, "-O0");
  ASSERT_TRUE(bin.ok());
  std::string root = dir / "cache";
  auto r = sh("perf --buildid-dir " + sonde::test::quoted(root) + " probe -q -f --cache -x " + sonde::test::quoted(bin.path()) +
              " 'handle_request req->id req->name:string'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto perf_lines = bin.events();
  bin.delete_events();
  std::string moved = dir / "moved";
  std::filesystem::copy_file(bin.path(), moved);
  auto ours = sonde_probe("-q --buildid-dir " + sonde::test::quoted(root) + " -x " + sonde::test::quoted(moved) + " " +
                          sonde::test::quoted("%" + bin.group() + ":handle_*"));
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto now = bin.events();
  ASSERT_EQ(now.size(), 1u);
  ASSERT_EQ(perf_lines.size(), 1u);
  std::string expected = perf_lines[0];  // perf's name, a collision suffix included: sonde defines what perf cached
  expected.replace(expected.find(bin.path()), bin.path().size(), moved);
  EXPECT_EQ(now[0], expected);
  auto none = sonde_probe("--buildid-dir " + sonde::test::quoted(root) + " -x " + sonde::test::quoted(moved) + " '%nothing:*'");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no cached definition of"), std::string::npos) << none.err;
}

TEST(ProbeCache, SdtEntriesAndDefinitionsShareTheFile) {
  TempDir dir;
  ProbeFixture bin(dir, "-O2");
  ASSERT_TRUE(bin.ok());
  std::string root = sonde::test::quoted(dir / "cache");
  ASSERT_EQ(sonde_probe("-q --buildid-dir " + root + " --cache -x " + sonde::test::quoted(bin.path()) + " scale").exit_code, 0);
  auto add = sh(sonde::test::quoted(sonde_bin()) + " sdt add --buildid-dir " + root + " " + sonde::test::quoted(bin.path()));
  ASSERT_EQ(add.exit_code, 0) << add.err;
  std::string file = probes_file(dir / "cache");
  EXPECT_NE(file.find("#scale\n"), std::string::npos) << file;
  EXPECT_NE(file.find("%sdt_probeargs:loop=loop\n"), std::string::npos) << file;
  auto list = sonde_probe("--buildid-dir " + root + " --cache --list");
  EXPECT_NE(list.out.find("):\nsdt_probeargs:loop=loop\nscale\n"), std::string::npos) << list.out;
  auto rm = sh(sonde::test::quoted(sonde_bin()) + " sdt remove --buildid-dir " + root + " " + sonde::test::quoted(bin.path()));
  ASSERT_EQ(rm.exit_code, 0) << rm.err;
  file = probes_file(dir / "cache");  // the SDT entry is gone, the definition stays
  EXPECT_TRUE(file.starts_with("#scale\np:" + bin.group() + "/scale " + bin.path() + ":0x")) << file;
  EXPECT_EQ(lines(file).size(), 2u) << file;
  auto del = sonde_probe("--buildid-dir " + root + " --cache -d " + sonde::test::quoted(bin.event("scale")));
  EXPECT_EQ(del.exit_code, 0) << del.err;
  EXPECT_EQ(probes_file(dir / "cache"), "");
  auto again = sonde_probe("--buildid-dir " + root + " --cache -d " + sonde::test::quoted(bin.event("scale")));
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("no cached definition matches"), std::string::npos) << again.err;
}
