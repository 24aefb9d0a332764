// Reports after the recorded binary is gone or rebuilt: symbols come from the
// build-id cache that `sonde record` filled, never from a binary whose
// build-id differs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

std::string record_env(const TempDir& dir) { return "SONDE_BUILDID_DIR=" + (dir / "cache") + " "; }

}  // namespace

TEST(ReportFromCache, DeletedBinaryStillResolvesThroughTheCacheTheRecorderFilled) {
  TempDir dir;
  std::string bin = dir / "hot_loop";
  ASSERT_TRUE(compile_fixture("hot_loop.c", bin));
  auto rec = sh(record_env(dir) + sonde_bin() + " record -q -g -o " + (dir / "r.data") + " -- " + bin + " 0.3");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  // perf shares the cache: it lists what the recorder kept.
  auto perf_list = sh("perf --buildid-dir " + (dir / "cache") + " buildid-cache -l 2>/dev/null");
  auto readelf = sh("readelf -n " + bin + " | sed -n 's/.*Build ID: //p'").out;
  readelf = readelf.substr(0, readelf.find('\n'));
  EXPECT_NE(perf_list.out.find(readelf), std::string::npos) << perf_list.out;
  std::filesystem::remove(bin);
  auto rep = sh(record_env(dir) + sonde_bin() + " report --no-children -i " + (dir / "r.data"));
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_NE(rep.out.find("[.] hot_function"), std::string::npos) << rep.out;
}

TEST(ReportFromCache, RebuiltBinaryWithAnotherBuildIdIsNotUsedAndTheReportSaysWhy) {
  TempDir dir;
  std::string bin = dir / "hot_loop";
  ASSERT_TRUE(compile_fixture("hot_loop.c", bin));
  auto rec = sh(record_env(dir) + sonde_bin() + " record -q -N -g -o " + (dir / "r.data") + " -- " + bin + " 0.3");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "cache")) << "-N must keep nothing";
  // Same path, different code: a different build-id and different addresses.
  ASSERT_TRUE(compile_fixture("hot_loop.c", bin, "-O0 -DREBUILT=1 -Wl,--build-id=sha1"));
  auto rep = sh(record_env(dir) + sonde_bin() + " report --no-children -i " + (dir / "r.data"));
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(rep.out.find("hot_function"), std::string::npos) << "a wrong binary was used:\n" << rep.out;
  EXPECT_NE(rep.out.find("build-id mismatch"), std::string::npos) << rep.out;
  EXPECT_NE(rep.out.find(bin), std::string::npos) << "the note names the object:\n" << rep.out;
}

// perf's own recording names its build-ids in a table (HEADER_BUILD_ID),
// not in its MMAP2s: sonde must take them from there, and find the binary
// in the cache perf filled rather than at the path, where another program
// now is.
TEST(ReportFromCache, PerfsRecordingResolvesThroughItsBuildIdTableNotTheFileNowAtThePath) {
  TempDir dir;
  std::string bin = dir / "hot_loop";
  ASSERT_TRUE(compile_fixture("hot_loop.c", bin));
  auto rec = sh("perf --buildid-dir " + (dir / "cache") + " record -q -o " + (dir / "p.data") + " -- " + bin +
                " 0.3 2>&1");
  ASSERT_EQ(rec.exit_code, 0) << rec.out;
  ASSERT_TRUE(compile_fixture("two_mix.c", bin));  // another program at the same path
  auto rep = sh(record_env(dir) + sonde_bin() + " report --no-children -i " + (dir / "p.data"));
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_NE(rep.out.find("[.] hot_function"), std::string::npos) << rep.out;
  EXPECT_EQ(rep.out.find("mix_"), std::string::npos) << "symbols of the file now at the path:\n" << rep.out;
  // Without the cached copy the file at the path is refused, not used.
  std::filesystem::remove_all(dir / "cache");
  auto bare = sh(record_env(dir) + sonde_bin() + " report --no-children -i " + (dir / "p.data"));
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  EXPECT_EQ(bare.out.find("mix_"), std::string::npos) << bare.out;
  EXPECT_NE(bare.out.find("build-id mismatch"), std::string::npos) << bare.out;
}

TEST(ReportFromCache, KernelSymbolsAreKeptForTheNextRunAndGiveTheSameNames) {
  TempDir dir;
  // dd with one-byte blocks spends most of its time in read/write syscalls:
  // the recording surely has kernel samples.
  auto rec = sh(record_env(dir) + sonde_bin() + " record -q -N -g -o " + (dir / "r.data") +
                " -- dd if=/dev/zero of=/dev/null bs=1 count=400000 status=none");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto first = sh(record_env(dir) + sonde_bin() + " report --no-children --sort sym -i " + (dir / "r.data"));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // The recorded (running) kernel's build-id, from the kernel map's MMAP2.
  auto kid = sh(sonde_bin() + " buildid-list -i " + (dir / "r.data") + " | sed -n 's/ \\[kernel.kallsyms\\].*//p' | head -1").out;
  kid = kid.substr(0, kid.find('\n'));
  ASSERT_EQ(kid.size(), 40u);
  EXPECT_TRUE(std::filesystem::exists(dir / ("cache/[kernel.kallsyms]/" + kid + "/kallsyms")));
  auto second = sh(record_env(dir) + sonde_bin() + " report --no-children --sort sym -i " + (dir / "r.data"));
  EXPECT_EQ(second.out, first.out);
  EXPECT_NE(first.out.find("[k] "), std::string::npos) << first.out;
}

// `sonde record` keeps the running kernel's kallsyms in the cache while it
// records (as perf record does), so the first report does not pay the
// 40-50 ms /proc/kallsyms read; a recording too short to finish reading it
// leaves nothing half-written.
TEST(ReportFromCache, RecorderKeepsTheKernelSymbolsWhileRecording) {
  TempDir dir;
  // Short: it may or may not finish reading; either way no partial file.
  auto quick = sh(record_env(dir) + sonde_bin() + " record -q -o " + (dir / "q.data") + " -- true");
  ASSERT_EQ(quick.exit_code, 0) << quick.err;
  // The running kernel's build-id, from the kernel map's MMAP2.
  auto kid = sh(sonde_bin() + " buildid-list -i " + (dir / "q.data") + " | sed -n 's/ \\[kernel.kallsyms\\].*//p' | head -1").out;
  kid = kid.substr(0, kid.find('\n'));
  ASSERT_EQ(kid.size(), 40u) << "no kernel build-id in the recording";
  const std::string copy = dir / ("cache/[kernel.kallsyms]/" + kid + "/kallsyms");
  auto temps = sh("find " + (dir / "cache") + " -name '*.tmp.*' | wc -l").out;
  EXPECT_EQ(temps, "0\n") << "a temporary file was left in the cache";
  // Whole: as many lines as /proc/kallsyms (which gains a line per BPF
  // program loaded meanwhile by anyone, hence the slack).
  auto whole = [&] {
    long copied = std::stol(sh("wc -l < '" + copy + "'").out), now = std::stol(sh("wc -l < /proc/kallsyms").out);
    return copied > 1000 && std::labs(copied - now) < 100;
  };
  if (std::filesystem::exists(copy)) {
    EXPECT_TRUE(whole());
    std::filesystem::remove_all(dir / "cache");
  }

  // Long enough (~1 s, against the 40-50 ms kallsyms read, with room for
  // a loaded machine): the copy is there, whole, before any report ran.
  auto rec = sh(record_env(dir) + sonde_bin() + " record -q -o " + (dir / "r.data") +
                " -- dd if=/dev/zero of=/dev/null bs=1 count=1000000 status=none");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_TRUE(std::filesystem::exists(copy)) << "the recorder did not keep kallsyms";
  EXPECT_TRUE(whole());
  EXPECT_EQ(sh("head -1 '" + copy + "'").out, sh("head -1 /proc/kallsyms").out);
  // And the report names kernel frames from it.
  auto rep = sh(record_env(dir) + sonde_bin() + " report --no-children --sort sym -i " + (dir / "r.data"));
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_NE(rep.out.find("[k] "), std::string::npos) << rep.out;
}

// The kernel gives no build-id for [vdso] (it has no file); the recorder
// reads it from the process and keeps the image, as perf record does, so
// sonde and perf both name the vdso's functions from the cache.
TEST(ReportFromCache, TheVdsoCarriesItsBuildIdAndIsKeptForReports) {
  TempDir dir;
  std::string bin = dir / "vdso_loop";
  ASSERT_TRUE(compile_fixture("sym_vdso.c", bin));
  // (The fixture's exit status is its checksum's low bit.)
  auto rec = sh(record_env(dir) + sonde_bin() + " record -q -g -o " + (dir / "r.data") + " -- sh -c '" + bin +
                " 3000000 || true'");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto list = sh(sonde_bin() + " buildid-list -i " + (dir / "r.data") + " | sed -n 's/ \\[vdso\\]$//p'").out;
  std::string id = list.substr(0, list.find('\n'));
  ASSERT_EQ(id.size(), 40u) << list;
  std::string kept = dir / ("cache/[vdso]/" + id + "/vdso");
  auto readelf = sh("readelf -n '" + kept + "' | sed -n 's/.*Build ID: //p'").out;
  EXPECT_EQ(readelf.substr(0, readelf.find('\n')), id);
  // perf reads the id from the MMAP2 record and lists it.
  auto perf_list = sh("perf buildid-list -i " + (dir / "r.data") + " 2>/dev/null");
  EXPECT_NE(perf_list.out.find(id + " "), std::string::npos) << perf_list.out;
  // The hottest row names what perf names: a symbol when the vdso has one
  // there, else the same image-relative address (which code is hottest
  // depends on the kernel's build, so the test does not name it).
  auto rep = sh(record_env(dir) + sonde_bin() + " report --no-children --sort dso,sym -i " + (dir / "r.data"));
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  auto first = rep.out.find("%  ");
  ASSERT_NE(first, std::string::npos) << rep.out;
  auto line = rep.out.substr(first, rep.out.find('\n', first) - first);
  EXPECT_NE(line.find("[vdso]"), std::string::npos) << rep.out;
  auto perf_rep = sh("perf --buildid-dir " + (dir / "cache") + " report --stdio --no-children --sort dso,sym -i " +
                     (dir / "r.data") + " 2>/dev/null | grep -m1 '%'");
  auto symbol_of = [](const std::string& row) {
    auto at = row.find("[.] ");
    if (at == std::string::npos) return std::string("(no [.] column)");
    std::string s = row.substr(at + 4);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
    return s;
  };
  EXPECT_NE(perf_rep.out.find("[vdso]"), std::string::npos) << perf_rep.out;
  EXPECT_EQ(symbol_of(line), symbol_of(perf_rep.out)) << rep.out << perf_rep.out;
}

// Paths in a recording name files on the reading machine, which may be
// anything by then: a FIFO where the binary was must not hang the report
// (opening it for reading would block until a writer came).
TEST(ReportFromCache, AFifoWhereTheBinaryWasIsNotOpened) {
  TempDir dir;
  std::string bin = dir / "hot_loop";
  ASSERT_TRUE(compile_fixture("hot_loop.c", bin));
  auto rec = sh(record_env(dir) + sonde_bin() + " record -q -N -g -o " + (dir / "r.data") + " -- " + bin + " 0.2");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  std::filesystem::remove(bin);
  ASSERT_EQ(sh("mkfifo " + bin).exit_code, 0);
  for (const char* cmd : {" report -i ", " script -i "}) {
    auto r = sh("timeout 60 env " + record_env(dir) + sonde_bin() + cmd + (dir / "r.data") + " >/dev/null");
    EXPECT_EQ(r.exit_code, 0) << cmd << " (124: it hung)\n" << r.err;
  }
}

// The first report writes each object's symbol index into the cache; the
// second maps them and prints the same bytes; a damaged index is ignored,
// rewritten, and changes nothing either.
TEST(ReportFromCache, ASecondReportMapsTheSymbolIndexesAndPrintsTheSameBytes) {
  TempDir dir;
  std::string bin = dir / "hot_loop";
  ASSERT_TRUE(compile_fixture("hot_loop.c", bin));
  auto rec = sh(record_env(dir) + sonde_bin() + " record -q -g -o " + (dir / "r.data") + " -- " + bin + " 0.3");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::string report = record_env(dir) + sonde_bin() + " report -g --stdio -i " + (dir / "r.data");
  auto first = sh(report);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("[.] hot_function"), std::string::npos) << first.out;
  const std::string indexes = "find " + (dir / "cache") + " -name sonde-symbols.idx";
  const auto found = lines(sh(indexes).out);
  ASSERT_FALSE(found.empty()) << "no symbol index written";
  auto id = sh("readelf -n " + bin + " | sed -n 's/.*Build ID: //p'").out;
  id = id.substr(0, id.find('\n'));
  const std::string own = dir / ("cache" + bin + "/" + id + "/sonde-symbols.idx");
  ASSERT_TRUE(std::filesystem::exists(own)) << sh(indexes).out;
  auto second = sh(report);
  EXPECT_EQ(second.out, first.out);
  EXPECT_EQ(second.err, first.err);
  for (const auto& f : found) sh("printf 'SONDESYM garbage' > '" + f + "'");
  auto third = sh(report);
  EXPECT_EQ(third.out, first.out);
  EXPECT_GT(std::filesystem::file_size(own), 64u) << "the damaged index was not rewritten";
}
