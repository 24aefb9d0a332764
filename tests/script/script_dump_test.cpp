// sonde script -D against perf script -D on the same recordings: every
// record's block (offset, size, type, raw bytes, what it says) is the same.
// Two differences are allowed, and the comparison is made per record to
// allow them: sonde dumps records in file order (perf dumps kernel records
// when its time-ordering queue delivers them), and it prints the dump alone
// (perf also prints its usual script lines and, under each sample, the
// thread and object it resolved at that moment).
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

using Blocks = std::map<std::string, std::vector<std::string>>;

// Offset -> the block's dump lines.
Blocks dump_blocks(const std::string& text) {
  static const std::regex header(R"(^(0x[0-9a-f]+|0)@\S+ \[0x[0-9a-f]+\]: event: \d+$)");
  Blocks out;
  std::vector<std::string>* cur = nullptr;
  for (const auto& l : lines(text)) {
    std::smatch m;
    if (std::regex_match(l, m, header)) {
      cur = &out[m[1]];
      cur->push_back(l);
    } else if (cur && (l.starts_with(".") || l.find("]: PERF_RECORD_") != std::string::npos)) {
      cur->push_back(l);
    }
  }
  return out;
}

class ScriptDump : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    std::string bin = *dir_ / "hot_loop";
    ASSERT_TRUE(compile_fixture("hot_loop.c", bin));
    const std::string workload = " -- sh -c '" + bin + " 0.2; true'";
    auto r = sh(sonde_bin() + " record -q -g -e cpu-clock -e sched:sched_process_exec -o " + (*dir_ / "chains.data") +
                workload);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = sh(sonde_bin() + " record -q -o " + (*dir_ / "flat.data") + workload);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = sh("perf record -q -g -o " + (*dir_ / "perf.data") + workload + " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
  static void TearDownTestSuite() { delete dir_; }
  static TempDir* dir_;
};
TempDir* ScriptDump::dir_ = nullptr;

}  // namespace

TEST_F(ScriptDump, EveryRecordsBlockIsPerfs) {
  for (const char* data : {"chains.data", "flat.data", "perf.data"}) {
    SCOPED_TRACE(data);
    // Run where the file is: perf and sonde name it as -i gives it.
    auto ours = sh("cd " + dir_->path() + " && " + sonde_bin() + " script -D -i " + data);
    auto perf = sh("cd " + dir_->path() + " && perf script -D -i " + data + " 2>/dev/null");
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    ASSERT_EQ(perf.exit_code, 0);
    Blocks o = dump_blocks(ours.out), p = dump_blocks(perf.out);
    ASSERT_GT(p.size(), 20u);
    EXPECT_EQ(o.size(), p.size());
    size_t differ = 0;
    for (const auto& [offset, block] : p) {
      auto it = o.find(offset);
      if (it != o.end() && it->second == block) continue;
      if (differ++ > 2) continue;
      std::string p_text, o_text;
      for (const auto& l : block) p_text += l + "\n";
      if (it != o.end())
        for (const auto& l : it->second) o_text += l + "\n";
      ADD_FAILURE() << "record at " << offset << "\n" << first_difference(o_text, p_text);
    }
    EXPECT_EQ(differ, 0u);
  }
}

// Offsets increase: the dump follows the file, for reports about odd files.
TEST_F(ScriptDump, RecordsInFileOrder) {
  auto ours = run({sonde_bin(), "script", "--dump-raw-trace", "-i", *dir_ / "chains.data"});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  uint64_t last = 0;
  size_t n = 0;
  for (const auto& [offset, block] : dump_blocks(ours.out)) (void)block, ++n;
  std::regex header(R"(^(0x[0-9a-f]+|0)@pipe )");
  for (const auto& l : lines(ours.out)) {
    std::smatch m;
    if (!std::regex_search(l, m, header)) continue;
    uint64_t at = std::stoull(m[1], nullptr, 16);
    EXPECT_TRUE(at == 0 || at > last) << l;
    last = at;
  }
  EXPECT_GT(n, 20u);
  EXPECT_EQ(count_lines_with(ours.out, "PERF_RECORD_SAMPLE(IP, "), count_lines_with(ours.out, "]: event: 9"));
}
