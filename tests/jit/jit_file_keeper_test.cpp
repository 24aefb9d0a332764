// record/jit_file_keeper.h: the JIT files a recording's processes write are
// copied beside it while they grow, and the copy is whole at the end.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "record/jit_file_keeper.h"
#include "support/test_support.h"
#include "util/fs.h"

using sonde::record::JitFileKeeper;
using sonde::test::TempDir;
using sonde::test::wait_until;

namespace {

void append(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::app | std::ios::binary);
  f << text;
}

}  // namespace

TEST(JitFileKeeper, CopiesAGrowingPerfMapAndJitdumpWholeByTheEnd) {
  TempDir dir;
  JitFileKeeper keeper(dir / "out.data.jit");
  keeper.perf_map_dir = dir.path();
  keeper.prepare({}, {});
  const std::string map = dir / "perf-77.map", dump = dir / "jit-77.dump";
  append(map, "1000 10 first\n");
  append(dump, std::string("JiTD\0\0\0\0", 8));
  keeper.on_exec_mapping(77, "//anon", {});
  keeper.on_exec_mapping(77, dump, {});
  keeper.on_exec_mapping(77, "/usr/lib/libc.so.6", {});  // not a JIT file
  // Until a copy pass has copied both as they are now.
  auto text = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  ASSERT_TRUE(wait_until([&] {
    return text(dir / "out.data.jit/perf-77.map") == "1000 10 first\n" &&
           text(dir / "out.data.jit/jit-77.dump").size() == 8;
  }));
  append(map, "2000 20 second\n");  // written after a copy pass
  append(dump, "more");
  keeper.stop();
  EXPECT_EQ(sonde::read_small_file(dir / "out.data.jit/perf-77.map"), "1000 10 first\n2000 20 second\n");
  EXPECT_EQ(sonde::read_small_file(dir / "out.data.jit/jit-77.dump"), std::string("JiTD\0\0\0\0more", 12));
  EXPECT_EQ(keeper.copied(), 2u);
  EXPECT_EQ(keeper.note(), "");
}

TEST(JitFileKeeper, AnEarlierRecordingsCopiesAreRemovedAndNothingIsMadeWithoutJitFiles) {
  TempDir dir;
  sonde::make_dirs(dir / "out.data.jit");
  append(dir / "out.data.jit/perf-5.map", "stale\n");
  JitFileKeeper keeper(dir / "out.data.jit");
  keeper.perf_map_dir = dir.path();
  keeper.prepare({}, {});
  keeper.on_exec_mapping(6, "//anon", {});  // its perf map never appears
  keeper.stop();
  EXPECT_FALSE(sonde::read_small_file(dir / "out.data.jit/perf-5.map"));
  EXPECT_FALSE(sonde::read_small_file(dir / "out.data.jit/perf-6.map"));
  EXPECT_EQ(keeper.copied(), 0u);
}
