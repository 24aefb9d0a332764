// Every mapping named as perf 6.1 names it (util/mapped_path.h): code run
// from anonymous memory reads [JIT] tid PID, from a memfd memfd:NAME
// (deleted), from a file deleted after mmap the file's name; report --sort
// dso and script -F ip,dso agree with perf row by row, on perf's recording
// and on sonde's. Mapping names with odd characters or none keep a row whole.
#include <gtest/gtest.h>
#include <unistd.h>
#include <sys/wait.h>
#include <signal.h>

#include <regex>

#include "format/perf_abi.h"
#include "format/record_builder.h"
#include "format/records.h"
#include "report/report_compare.h"
#include "support/synthetic_stream.h"
#include "support/test_support.h"

using namespace sonde::test;
using namespace sonde::format;

namespace {

class MappingNames : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const std::string bin = *dir_ / "mapped_code";
    ASSERT_TRUE(compile_fixture("mapped_code.c", bin));
    const std::string work = dir_->path() + " 0.6";
    auto r = sh("perf record -q -e cpu-clock -o " + perf_data() + " -- " + bin + " " + work + " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    r = sh(sonde_bin() + " record -q -e cpu-clock -o " + sonde_data() + " -- " + bin + " " + work + " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string perf_data() { return *dir_ / "perf.data"; }
  static std::string sonde_data() { return *dir_ / "sonde.data"; }
  static TempDir* dir_;
};
TempDir* MappingNames::dir_ = nullptr;

// The three objects the fixture runs its code from, as perf names them.
void expect_three_objects(const std::string& report) {
  EXPECT_TRUE(std::regex_search(report, std::regex(R"(\n +[0-9.]+%  \[JIT\] tid [0-9]+ *\n)"))) << report;
  EXPECT_TRUE(std::regex_search(report, std::regex(R"(\n +[0-9.]+%  memfd:sonde-code \(deleted\) *\n)"))) << report;
  EXPECT_TRUE(std::regex_search(report, std::regex(R"(\n +[0-9.]+%  code\.bin.*\n)"))) << report;
  EXPECT_EQ(report.find("anon"), std::string::npos) << report;
}

TEST_F(MappingNames, ReportSortDsoMatchesPerfOnBothRecordings) {
  for (const std::string& data : {perf_data(), sonde_data()}) {
    auto r = compare_reports(data, "--no-children --sort dso", "--no-children --sort dso");
    ASSERT_EQ(r.ours.exit_code, 0) << r.ours.err;
    ASSERT_EQ(r.perf.exit_code, 0) << data;
    expect_three_objects(r.perf.out);
    expect_three_objects(r.ours.out);
    EXPECT_EQ(r.difference, "") << data;
  }
}

TEST_F(MappingNames, ScriptIpDsoMatchesPerfOnBothRecordings) {
  for (const std::string& data : {perf_data(), sonde_data()}) {
    auto ours = sh(sonde_bin() + " script -i " + data + " -F ip,dso");
    auto perf = sh("perf script -i " + data + " -F ip,dso 2>/dev/null");
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    ASSERT_EQ(perf.exit_code, 0) << data;
    EXPECT_NE(perf.out.find(".map)\n"), std::string::npos) << perf.out.substr(0, 2000);  // /tmp/perf-PID.map
    EXPECT_NE(perf.out.find("(/memfd:sonde-code (deleted))\n"), std::string::npos);
    EXPECT_EQ(first_difference(ours.out, perf.out), "") << data;
  }
}

// The JSON report and the exports print the same short name as the table.
TEST_F(MappingNames, JsonReportAndExportsNameJitCode) {
  auto json = sh(sonde_bin() + " report -i " + sonde_data() + " --no-children --sort dso --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const std::regex jit(R"(\[JIT\] tid [0-9]+)");
  EXPECT_TRUE(std::regex_search(json.out, jit)) << json.out;
  for (const std::string to : {"speedscope", "html", "folded", "pprof"}) {
    const std::string out = *dir_ / ("out." + to);
    auto r = run({sonde_bin(), "convert", "-i", sonde_data(), "--to", to, "-o", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // pprof is a gzipped protobuf: its string table holds the names as is.
    auto text = sh(to == "pprof" ? "gzip -dc " + out : "cat " + out).out;
    EXPECT_TRUE(std::regex_search(text, jit)) << to << ": " << text.substr(0, 2000);
    EXPECT_NE(text.find("memfd:sonde-code (deleted)"), std::string::npos) << to;
    EXPECT_EQ(text.find("//anon"), std::string::npos) << to;
  }
}

// diff matches rows by these names: the same recording against itself
// shows every object once, by perf's name.
TEST_F(MappingNames, DiffNamesEveryObjectAsReportDoes) {
  auto r = run({sonde_bin(), "diff", "--sort", "dso", sonde_data(), sonde_data()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +[0-9.]+% +\+0\.00% +\[JIT\] tid [0-9]+ *\n)"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +[0-9.]+% +\+0\.00% +memfd:sonde-code \(deleted\) *\n)")))
      << r.out;
  EXPECT_EQ(r.out.find("anon"), std::string::npos) << r.out;
}

// top names the objects of a live process as report names them in a file.
TEST_F(MappingNames, TopNamesEveryObjectAsReportDoes) {
  const std::string bin = *dir_ / "mapped_code";
  const std::string work = dir_->path();  // code.bin is made and removed at once
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    execl(bin.c_str(), bin.c_str(), work.c_str(), "3", static_cast<char*>(nullptr));
    _exit(127);
  }
  auto r = run({sonde_bin(), "top", "--stdio", "-d", "0.5", "--iterations", "2", "-s", "dso", "-p",
                std::to_string(child)});
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The last table: the fixture runs each object's code in turn, all three
  // within one 0.5 s refresh.
  const std::string last = r.out.substr(r.out.rfind("sonde top #"));
  EXPECT_TRUE(std::regex_search(last, std::regex(R"(\n +[0-9.]+%  \[JIT\] tid )" + std::to_string(child) + " *\n")))
      << last;
  EXPECT_TRUE(std::regex_search(last, std::regex(R"(\n +[0-9.]+%  memfd:sonde-code \(deleted\) *\n)"))) << last;
  EXPECT_EQ(last.find("anon"), std::string::npos) << last;
}

// A hand-made recording: one process with mappings named oddly or not at
// all, one sample in each.
constexpr uint64_t kSampleType = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                 PERF_SAMPLE_PERIOD;
constexpr uint32_t kPid = 4343;
constexpr uint64_t kBase = 0x7f0000000000;

void put_sample_id(RecordBuilder& b, uint64_t time) { b.put(kPid).put(kPid).put(time).put(SyntheticStream::kEventId); }

void write_odd_names(const std::string& path, const std::vector<std::string>& names) {
  SyntheticStream s(path, kSampleType);
  CommView c;
  c.pid = c.tid = kPid;
  c.comm = "odd";
  RecordBuilder comm = build_comm(c);
  put_sample_id(comm, 1000);
  ASSERT_TRUE(comm.finish());
  s.writer().write_record(comm.bytes());
  for (size_t i = 0; i < names.size(); ++i) {
    Mmap2View m;
    m.pid = m.tid = kPid;
    m.addr = kBase + i * 0x10000;
    m.len = 0x10000;
    m.prot = 5;  // r-x
    m.flags = 2;
    m.filename = names[i];
    RecordBuilder mmap = build_mmap2(m);
    put_sample_id(mmap, 1001 + i);
    ASSERT_TRUE(mmap.finish());
    s.writer().write_record(mmap.bytes());
  }
  uint64_t time = 2000;
  for (size_t i = 0; i < names.size(); ++i) {
    RecordBuilder b(kSample, kMiscUser);
    b.put(SyntheticStream::kEventId).put(kBase + i * 0x10000 + 0x100).put(kPid).put(kPid).put(time += 1000);
    b.put(uint64_t{1000});
    ASSERT_TRUE(b.finish());
    s.writer().write_record(b.bytes());
  }
  s.writer().write_finished_round();
}

TEST(MappingNamesBadInput, OddOrMissingNamesKeepEveryRowWhole) {
  TempDir dir;
  const std::string data = dir / "odd.data";
  const std::vector<std::string> names = {"", "/tmp/odd\tname\nx.so", "[broken", "/tmp/\x1b[31mred.so", "//anon",
                                          "[heap]"};
  write_odd_names(data, names);
  auto r = run({sonde_bin(), "report", "-i", data, "--no-children", "--sort", "dso"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t rows = 0;
  for (const auto& l : lines(r.out)) {
    EXPECT_TRUE(std::regex_match(l, std::regex(R"([ -~]*)"))) << l;  // notes too: no control character
    if (l.starts_with("#") || l.empty()) continue;
    ++rows;
    EXPECT_TRUE(std::regex_match(l, std::regex(R"( +[0-9.]+%  [ -~]+)"))) << l;
  }
  // Six mappings, five objects: //anon and [heap] are both the pid's JIT code.
  EXPECT_EQ(rows, 5u) << r.out;
  for (const char* name : {"[unknown]", "odd?name?x.so", "[broken", "?[31mred.so", "[JIT] tid 4343"})
    EXPECT_NE(r.out.find(std::string("%  ") + name), std::string::npos) << name << "\n" << r.out;
  auto script = run({sonde_bin(), "script", "-i", data, "-F", "ip,dso"});
  ASSERT_EQ(script.exit_code, 0) << script.err;
  EXPECT_EQ(lines(script.out).size(), names.size()) << script.out;
  EXPECT_NE(script.out.find("(/tmp/odd?name?x.so)"), std::string::npos) << script.out;
  EXPECT_EQ(count_lines_with(script.out, "(/tmp/perf-4343.map)"), 2u) << script.out;
}

}  // namespace
