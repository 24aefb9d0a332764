// sonde push and readers over a real ClickHouse (clickhouse-server from
// Debian, started here on free ports with its data in a scratch folder):
// the store's report equals the file's, pushes are idempotent, two hosts
// sum, a diff of two time ranges shows the function that grew, and every
// bad input or store fault gets one line and its exit code.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <time.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "clickhouse_server.h"
#include "support/test_support.h"

using namespace sonde::test;

namespace {

class Fleet : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    server_ = new ClickHouseServer(*dir_ / "clickhouse");
    if (!server_->running()) return;
    ASSERT_TRUE(compile_fixture("two_mix.c", *dir_ / "two_mix", "-fno-omit-frame-pointer"));
    record("80", "base.data");
    record("20", "new.data");
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }
  void SetUp() override {
    if (!server_->running()) GTEST_SKIP() << server_->error();
  }
  static void record(const std::string& percent_a, const std::string& out) {
    auto r = run({sonde_bin(), "record", "-q", "-g", "-o", *dir_ / out, "--", *dir_ / "two_mix", "0.6", percent_a});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static std::string path(const std::string& name) { return *dir_ / name; }
  static RunResult push(const std::string& file, const std::string& db, const std::string& host, int64_t start) {
    return run({sonde_bin(), "push", "-i", path(file), "--to", server_->url(db), "--service", "api", "--host", host,
                "--start", std::to_string(start), "--label", "team=core"});
  }
  static uint64_t total(const std::string& db, const std::string& where = "1") {
    return std::stoull(server_->query("SELECT sum(count) FROM " + db + ".sonde_samples FINAL WHERE " + where));
  }
  // The report's rows and its "# Samples" / "# Event count" lines.
  static std::vector<std::string> report_rows(const std::string& input) {
    auto r = run({sonde_bin(), "report", "-i", input, "--no-children", "-n"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> out;
    for (const auto& l : lines(r.out))
      if (!l.empty() && (l[0] != '#' || l.starts_with("# Samples") || l.starts_with("# Event count"))) out.push_back(l);
    return out;
  }
  static int64_t now() { return int64_t(::time(nullptr)); }
  static TempDir* dir_;
  static ClickHouseServer* server_;
};
TempDir* Fleet::dir_ = nullptr;
ClickHouseServer* Fleet::server_ = nullptr;

TEST_F(Fleet, StoreReportEqualsTheFilesReport) {
  auto p = push("base.data", "one", "web-1", now() - 600);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_TRUE(std::regex_search(p.err, std::regex("sonde push: .*: [0-9]+ samples in [0-9]+ rows"))) << p.err;
  auto file = report_rows(path("base.data"));
  auto store = report_rows(server_->url("one") + "?service=api&host=web-*");
  ASSERT_GE(file.size(), 4u);
  EXPECT_EQ(first_difference(fmt::format("{}", fmt::join(store, "\n")), fmt::format("{}", fmt::join(file, "\n"))), "");
}

TEST_F(Fleet, PushingTwiceDoesNotDoubleCounts) {
  ASSERT_EQ(push("base.data", "twice", "web-1", now() - 600).exit_code, 0);
  const uint64_t once = total("twice");
  ASSERT_GT(once, 0u);
  ASSERT_EQ(push("base.data", "twice", "web-1", now() - 600).exit_code, 0);
  EXPECT_EQ(total("twice"), once);
  // Stacks are stored once each.
  EXPECT_EQ(server_->query("SELECT count() - uniqExact(stack_id) FROM twice.sonde_stacks FINAL"), "0\n");
}

TEST_F(Fleet, TwoHostsSumAndADiffOfTwoRangesShowsWhatGrew) {
  ASSERT_EQ(push("base.data", "two", "web-1", now() - 3 * 3600).exit_code, 0);
  ASSERT_EQ(push("new.data", "two", "web-2", now() - 1200).exit_code, 0);
  const uint64_t h1 = total("two", "host = 'web-1'"), h2 = total("two", "host = 'web-2'");
  ASSERT_GT(h1, 0u);
  ASSERT_GT(h2, 0u);
  // The fleet report counts both hosts' samples.
  auto all = report_rows(server_->url("two") + "?service=api");
  ASSERT_FALSE(all.empty());
  const uint64_t period = std::stoull(server_->query("SELECT sum(period) FROM two.sonde_samples FINAL"));
  const uint64_t p1 = std::stoull(server_->query("SELECT sum(period) FROM two.sonde_samples FINAL WHERE host = 'web-1'"));
  EXPECT_GT(period, p1);
  ASSERT_GE(all.size(), 2u);
  EXPECT_EQ(all[1], "# Event count (approx.): " + std::to_string(period));
  auto labelled = report_rows(server_->url("two") + "?label.team=core&since=4h");
  ASSERT_FALSE(labelled.empty());
  EXPECT_EQ(labelled[0], all[0]);
  // Before the deploy (older than 2 h) against the last hour: mix_b grew.
  auto d = run({sonde_bin(), "diff", server_->url("two") + "?until=2h", server_->url("two") + "?since=1h",
                "--format", "json"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_TRUE(std::regex_search(d.out, std::regex("\"sym\": *\"mix_b\""))) << d.out;
  auto t = run({sonde_bin(), "diff", server_->url("two") + "?until=2h", server_->url("two") + "?since=1h"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_TRUE(std::regex_search(t.out, std::regex("\\+[0-9.]+%  two_mix +\\[\\.\\] mix_b"))) << t.out;
  // convert reads the store too: folded stacks, and the page over the fleet.
  auto c = run({sonde_bin(), "convert", "-i", server_->url("two") + "?host=web-2", "--to", "folded", "-o", "-"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("mix_b"), std::string::npos) << c.out;
  auto h = run({sonde_bin(), "convert", "-i", server_->url("two") + "?service=api", "--to", "html", "-o", path("fleet.html")});
  ASSERT_EQ(h.exit_code, 0) << h.err;
  std::ifstream page(path("fleet.html"));
  const std::string html((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("mix_b"), std::string::npos);
}

// `sonde script` over the store: one entry per stored row in perf script's
// layout (its bucket's time, summed period, samples=N, host and labels),
// its frames below; the entries hold every sample and every period.
TEST_F(Fleet, ScriptListsTheStoresRowsWithTheirFrames) {
  const int64_t start = now() - 600;
  ASSERT_EQ(push("base.data", "listing", "web-1", start).exit_code, 0);
  ASSERT_EQ(push("new.data", "listing", "web-2", start).exit_code, 0);
  auto r = run({sonde_bin(), "script", "-i", server_->url("listing") + "?host=web-1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::regex head("two_mix +[0-9]+/[0-9]+ +\\[[0-9]{3}\\] ([0-9]+)\\.000000: +([0-9]+) cpu-clock: samples=([0-9]+) "
                        "host=web-1 team=core");
  uint64_t entries = 0, samples = 0, period = 0;
  std::smatch m;
  for (const auto& l : lines(r.out)) {
    if (l.empty() || l[0] == '\t') continue;
    ASSERT_TRUE(std::regex_match(l, m, head)) << l;
    EXPECT_EQ(std::stoll(m[1]), start - start % 60);  // the bucket's start
    ++entries, period += std::stoull(m[2]), samples += std::stoull(m[3]);
  }
  EXPECT_EQ(samples, total("listing", "host = 'web-1'"));
  EXPECT_EQ(std::to_string(period) + "\n",
            server_->query("SELECT sum(period) FROM listing.sonde_samples FINAL WHERE host = 'web-1'"));
  EXPECT_EQ(std::to_string(entries) + "\n",
            server_->query("SELECT count() FROM (SELECT 1 FROM listing.sonde_samples FINAL WHERE host = 'web-1' "
                           "GROUP BY bucket, event, comm, pid, tid, cpu, stack_id, label_values)"));
  // mix_b's frames, leaf first, as perf script prints them.
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\n\t +[0-9a-f]+ mix_b\\+0x[0-9a-f]+ \\(" + path("two_mix") +
                                                  "\\)\n\t +[0-9a-f]+ main\\+0x[0-9a-f]+ \\(")))
      << r.out.substr(0, 2000);
  // -G: the lines alone; --max-stack 1: the leaf alone.
  auto g = run({sonde_bin(), "script", "-i", server_->url("listing") + "?host=web-1", "-G"});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  EXPECT_EQ(lines(g.out).size(), entries);
  auto one = run({sonde_bin(), "script", "-i", server_->url("listing") + "?host=web-1", "--max-stack", "1"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(count_lines_with(one.out, "\t"), entries);
  // Both hosts: web-2's entries too.
  auto both = run({sonde_bin(), "script", "-i", server_->url("listing"), "-G"});
  EXPECT_GT(count_lines_with(both.out, " host=web-2 "), 0u) << both.out.substr(0, 2000);
}

// "What got slower after the deploy": two builds of the program (another
// build-id), selected by build_id in the URL.
TEST_F(Fleet, ADiffOfTwoBuildsShowsWhatGrew) {
  ASSERT_TRUE(compile_fixture("two_mix.c", *dir_ / "two_mix_v2", "-fno-omit-frame-pointer -O1"));
  auto rec = run({sonde_bin(), "record", "-q", "-g", "-o", path("v2.data"), "--", *dir_ / "two_mix_v2", "0.6", "20"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_EQ(push("base.data", "builds", "web-1", now() - 1200).exit_code, 0);
  ASSERT_EQ(push("v2.data", "builds", "web-1", now() - 600).exit_code, 0);
  // Each program's build-id: its rows' with the most samples (a sample taken
  // in the dynamic loader before main has the loader's: docs/fleet.md).
  auto program_build_id = [&](const std::string& comm) {
    return server_->query("SELECT build_id FROM builds.sonde_samples FINAL WHERE comm = '" + comm +
                          "' GROUP BY build_id ORDER BY sum(count) DESC LIMIT 1 FORMAT TabSeparated");
  };
  const std::string old_id = program_build_id("two_mix"), new_id = program_build_id("two_mix_v2");
  ASSERT_EQ(old_id.size(), 41u) << old_id;  // 40 hex digits and a newline
  ASSERT_EQ(new_id.size(), 41u) << new_id;
  ASSERT_NE(old_id, new_id);
  const std::string url = server_->url("builds") + "?build_id=";
  auto d = run({sonde_bin(), "diff", url + old_id.substr(0, 40), url + new_id.substr(0, 40), "--sort", "sym"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_TRUE(std::regex_search(d.out, std::regex("\\+[0-9.]+% +.*mix_b"))) << d.out;
}

// SDT hits go with their arguments as labels: one row per distinct list of
// arguments, selectable with label.argN; the report sums them per function.
TEST_F(Fleet, ProbeHitsCarryTheirArgumentsAsLabels) {
  ASSERT_TRUE(compile_fixture("sdt_forms.c", *dir_ / "sdt_forms"));
  auto rec = run({sonde_bin(), "record", "-q", "-e", "%sfix:consts", "-e", "%sfix:plain", "-o", path("sdt.data"), "--",
                  *dir_ / "sdt_forms", "3"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto p = run({sonde_bin(), "push", "-i", path("sdt.data"), "--to", server_->url("sdt"), "--host", "h", "--start",
                std::to_string(now() - 60), "--label", "team=core"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const std::string arg1 = "label_values[indexOf(label_keys, 'arg1')]";
  EXPECT_EQ(server_->query("SELECT " + arg1 + ", sum(count) FROM sdt.sonde_samples FINAL WHERE event = '%sfix:plain' "
                           "GROUP BY " + arg1 + " ORDER BY " + arg1 + " FORMAT TabSeparated"),
            "0\t1\n1\t1\n2\t1\n");
  // Every hit of consts has the same six arguments: one row, after the push's label.
  EXPECT_EQ(server_->query("SELECT label_keys, label_values, count FROM sdt.sonde_samples FINAL WHERE event = "
                           "'%sfix:consts' FORMAT TabSeparated"),
            "['team','arg1','arg2','arg3','arg4','arg5','arg6']\t['core','-7','200','-300','3000000000','-9','77']\t3\n");
  auto one = run({sonde_bin(), "report", "-i", server_->url("sdt") + "?event=%25sfix:plain&label.arg1=1", "-n"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.out.find("# Samples: 1  of event '%sfix:plain'"), std::string::npos) << one.out;
  // script lists each argument list's entry with its labels.
  auto listed = run({sonde_bin(), "script", "-i", server_->url("sdt") + "?event=%25sfix:plain", "-G"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  for (const char* arg : {"0", "1", "2"})
    EXPECT_EQ(count_lines_with(listed.out, std::string(" %sfix:plain: samples=1 host=h team=core arg1=") + arg), 1u)
        << listed.out;
  auto all = run({sonde_bin(), "report", "-i", server_->url("sdt"), "-n"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find("# Samples: 3  of event '%sfix:plain'"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("# Samples: 3  of event '%sfix:consts'"), std::string::npos) << all.out;
}

// A `sonde probe` event's fields go as labels named after them. The group
// is this test's own (probe_fleetprobe), removed at the end.
TEST_F(Fleet, SondeProbeHitsCarryTheirFieldsAsLabels) {
  ASSERT_TRUE(compile_fixture("probe_args.c", *dir_ / "fleetprobe", "-O0 -g"));
  struct Cleanup {
    ~Cleanup() { run({sonde_bin(), "probe", "-q", "-d", "probe_fleetprobe:*"}); }
  } cleanup;
  auto def = run({sonde_bin(), "probe", "-x", *dir_ / "fleetprobe", "handle_request flags"});
  ASSERT_EQ(def.exit_code, 0) << def.err;
  auto rec = run({sonde_bin(), "record", "-q", "-e", "probe_fleetprobe:handle_request", "-o", path("probe.data"), "--",
                  *dir_ / "fleetprobe", "3"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto p = run({sonde_bin(), "push", "-i", path("probe.data"), "--to", server_->url("probed"), "--host", "h"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(server_->query("SELECT label_keys, label_values, sum(count) FROM probed.sonde_samples FINAL GROUP BY "
                           "label_keys, label_values ORDER BY label_values FORMAT TabSeparated"),
            "['flags']\t['0']\t1\n['flags']\t['1']\t1\n['flags']\t['2']\t1\n");
}

// Per event of a report's header: "# Samples: N  of event 'E'" and the
// "# Event count (approx.): P" after it, as "E N P" lines.
std::vector<std::string> event_totals(const std::string& report) {
  std::vector<std::string> out;
  std::smatch m;
  for (const auto& l : lines(report)) {
    if (std::regex_match(l, m, std::regex("# Samples: ([0-9]+)  of event '(.*)'")))
      out.push_back(m[2].str() + " " + m[1].str());
    else if (std::regex_match(l, m, std::regex("# Event count \\(approx\\.\\): ([0-9]+)")) && !out.empty())
      out.back() += " " + m[1].str();
  }
  return out;
}

// Off-CPU time (offcpu-time, offcpu-time:preempt: nanoseconds blocked or
// waiting to run, with the stack that blocked) goes as it is in the file:
// the store's rows per event, its report and its totals are the file's.
TEST_F(Fleet, OffCpuTimeGoesToTheStoreAsTheFileHasIt) {
  ASSERT_TRUE(compile_fixture("offcpu_waits.c", *dir_ / "offcpu_waits", "-O2 -fno-omit-frame-pointer -pthread"));
  auto rec = run({sonde_bin(), "record", "-q", "-g", "--off-cpu", "--off-cpu-thresh", "10", "-o", path("offcpu.data"),
                  "--", *dir_ / "offcpu_waits"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto p = run({sonde_bin(), "push", "-i", path("offcpu.data"), "--to", server_->url("offcpu"), "--host", "h",
                "--start", std::to_string(now() - 60)});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  // The file's report: samples and nanoseconds per event (sonde -n prints
  // exact counts), and its rows; the store's must be the same.
  auto file = run({sonde_bin(), "report", "-i", path("offcpu.data"), "--no-children", "-n"});
  ASSERT_EQ(file.exit_code, 0) << file.err;
  const auto totals = event_totals(file.out);
  ASSERT_FALSE(totals.empty()) << file.out;
  std::string store_totals;
  for (const auto& row : lines(server_->query("SELECT event, sum(count), sum(period) FROM offcpu.sonde_samples FINAL "
                                              "GROUP BY event ORDER BY event FORMAT TabSeparated")))
    if (!row.empty()) store_totals += std::regex_replace(row, std::regex("\t"), " ") + "\n";
  auto sorted = totals;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(store_totals, fmt::format("{}\n", fmt::join(sorted, "\n")));
  EXPECT_NE(store_totals.find("offcpu-time "), std::string::npos) << store_totals;
  EXPECT_EQ(server_->query("SELECT DISTINCT event_unit FROM offcpu.sonde_samples WHERE event LIKE 'offcpu-time%'"),
            "nanoseconds\n");
  // The blocked thread nap's 10 sleeps are under offcpu-time, in nap().
  EXPECT_NE(server_->query("SELECT sum(count) FROM offcpu.sonde_samples FINAL WHERE event = 'offcpu-time' AND comm = "
                           "'nap' AND stack_id IN (SELECT stack_id FROM offcpu.sonde_stacks WHERE "
                           "arrayExists(f -> position(f, '\x1fnap\x1f') > 0, frames))"),
            "0\n");
  auto store = report_rows(server_->url("offcpu"));
  auto local = report_rows(path("offcpu.data"));
  EXPECT_EQ(first_difference(fmt::format("{}", fmt::join(store, "\n")), fmt::format("{}", fmt::join(local, "\n"))), "");
}

// A store made by a sonde before event_kind (the schema of 2026-12-05, its
// sonde_samples without the column, one off-CPU row in it): the next push
// adds the column, its own rows carry their kinds, the old row keeps an
// empty kind, and readers read both.
TEST_F(Fleet, AStoreFromBeforeTheKindColumnIsMigratedByThePush) {
  const std::string db = "before_kinds";
  ASSERT_EQ(server_->query("CREATE DATABASE " + db), "");
  ASSERT_EQ(server_->query("CREATE TABLE " + db +
                           ".sonde_samples (recording_id String, bucket DateTime, host String, service String, "
                           "build_id String, label_keys Array(String), label_values Array(String), event String, "
                           "event_unit String, sample_type UInt64, attr_index UInt32, comm String, pid UInt32, tid "
                           "UInt32, cpu UInt32, stack_id UInt64, args_id UInt64, count UInt64, period UInt64) ENGINE = "
                           "ReplacingMergeTree() PARTITION BY toYYYYMM(bucket) ORDER BY (service, host, bucket, "
                           "recording_id, event, comm, pid, tid, cpu, stack_id, args_id)"),
            "");
  ASSERT_EQ(server_->query("INSERT INTO " + db +
                           ".sonde_samples VALUES ('old', toDateTime(" + std::to_string(now() - 120) +
                           "), 'h', 'api', '', [], [], 'offcpu-time', 'nanoseconds', 0, 1, 'napper', 5, 5, 0, 0, 0, 3, "
                           "3000000)"),
            "");
  auto p = push("base.data", db, "h", now() - 60);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(server_->query("SELECT count() FROM system.columns WHERE database = '" + db +
                           "' AND table = 'sonde_samples' AND name = 'event_kind'"),
            "1\n");
  EXPECT_EQ(server_->query("SELECT DISTINCT event_kind FROM " + db + ".sonde_samples WHERE recording_id = 'old'"),
            "\n");
  EXPECT_EQ(server_->query("SELECT DISTINCT event_kind FROM " + db + ".sonde_samples WHERE recording_id != 'old'"),
            "cpu-time\n");
  // Readers read old and new rows together (their kinds: FleetAnswers.*).
  auto report = run({sonde_bin(), "report", "-i", server_->url(db), "--sort", "comm", "-n"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("# Samples: 3  of event 'offcpu-time'\n# Event count (approx.): 3000000\n"),
            std::string::npos)
      << report.out;
  EXPECT_NE(report.out.find("of event 'cpu-clock'"), std::string::npos) << report.out;
  auto again = push("base.data", db, "h", now() - 60);
  EXPECT_EQ(again.exit_code, 0) << "the migration runs once: " << again.err;
}

TEST_F(Fleet, BadInputsGetOneLineAndTheirExitCode) {
  struct Case {
    std::vector<std::string> args;
    int code;
    std::string message;
  };
  const std::string db = server_->url("bad");
  const std::vector<Case> cases = {
      {{"push", "-i", path("base.data"), "--to", "clickhouse://127.0.0.1:1"}, 2, "no database"},
      {{"push", "-i", path("base.data"), "--to", db, "--label", "team"}, 2, "--label 'team' is not KEY=VALUE"},
      {{"push", "-i", path("base.data"), "--to", "clickhouse://127.0.0.1:70000/x"}, 2, "port '70000'"},
      {{"push", "-i", path("base.data")}, 2, "--to clickhouse://HOST:PORT/DB is required"},
      {{"report", "-i", db + "?colour=red"}, 2, "unknown parameter 'colour'"},
      {{"report", "-i", db + "?since=yesterday"}, 2, "since='yesterday' is not a duration"},
      {{"report", "-i", db + "?since=99999999999d"}, 2, "since='99999999999d' is not a duration"},
      {{"report", "-i", db + "?until=30000d"}, 2, "until='30000d' reaches back before 1970"},
      {{"report", "-i", db + "?timeout=0"}, 2, "timeout='0' is not 1..86400 seconds"},
      {{"report", "-i", "clickhouse://127.0.0.1:8123?host=a"}, 2, "no database"},
      {{"push", "-i", path("base.data"), "--to", db, "--label", "=x"}, 2, "--label '=x' is not KEY=VALUE"},
      {{"push", "-i", path("base.data"), "--to", db + "?host=a"}, 2, "no query parameters when pushing"},
      {{"report", "-i", db, "--stats"}, 2, "need a recording, not a store"},
      {{"convert", "-i", db, "--to", "perf", "-o", path("x.data")}, 2, "needs a recording, not a store"},
      {{"agent", "-o", path("x.data"), "--to", "clickhouse://127.0.0.1:1"}, 2, "no database"},
      {{"agent", "-o", path("x.data"), "--to", db, "--label", "team"}, 2, "--label 'team' is not KEY=VALUE"},
      {{"script", "-i", db, "-F", "comm,ip"}, 2, "script: -F needs a recording, not a store"},
      {{"script", "-i", db, "--time", "1,2"}, 2, "script: --time needs a recording, not a store"},
      {{"script", "-i", db + "?hosts=a"}, 2, "unknown parameter 'hosts'"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> argv = {sonde_bin()};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    auto r = run(argv);
    EXPECT_EQ(r.exit_code, c.code) << c.args[0] << " " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(count_lines_with(r.err, ""), 1u) << r.err;
  }
}

TEST_F(Fleet, AStoreThatIsDownOrRejectsTheBatchIsOneRuntimeLine) {
  // Nothing listens on port 1.
  auto down = run({sonde_bin(), "push", "-i", path("base.data"), "--to", "clickhouse://127.0.0.1:1/x", "--attempts", "2"});
  EXPECT_EQ(down.exit_code, 1);
  EXPECT_NE(down.err.find("unreachable"), std::string::npos) << down.err;
  EXPECT_EQ(count_lines_with(down.err, ""), 1u) << down.err;
  // A table of another shape: the store rejects the batch; nothing stored
  // is claimed.
  server_->query("CREATE DATABASE IF NOT EXISTS rejecting");
  server_->query("CREATE TABLE rejecting.sonde_samples (x UInt8, event_kind String) ENGINE = Memory");
  auto rejected = run({sonde_bin(), "push", "-i", path("base.data"), "--to", server_->url("rejecting"), "--attempts", "1"});
  EXPECT_EQ(rejected.exit_code, 1);
  EXPECT_TRUE(std::regex_search(rejected.err, std::regex("batch 1 of 1 failed after 1 attempts .*rejected.*; 0 of [0-9]+ "
                                                         "rows \\(0 of [0-9]+ samples\\) stored; pushing again is safe")))
      << rejected.err;
  EXPECT_EQ(count_lines_with(rejected.err, ""), 1u) << rejected.err;
  // A reader of a store that is down.
  // A reader's query the store rejects: a database nothing was pushed to.
  for (const char* reader : {"report", "script"}) {
    auto r = run({sonde_bin(), reader, "-i", server_->url("nothing_pushed")});
    EXPECT_EQ(r.exit_code, 1) << reader;
    EXPECT_NE(r.err.find("rejected the request (HTTP"), std::string::npos) << r.err;
    EXPECT_EQ(count_lines_with(r.err, ""), 1u) << r.err;
  }
  for (const char* reader : {"report", "script"}) {
    auto r = run({sonde_bin(), reader, "-i", "clickhouse://127.0.0.1:1/x"});
    EXPECT_EQ(r.exit_code, 1) << reader;
    EXPECT_NE(r.err.find("store 127.0.0.1:1 is unreachable"), std::string::npos) << r.err;
    EXPECT_EQ(count_lines_with(r.err, ""), 1u) << r.err;
  }
}

// A port where the kernel accepts connections (the listen backlog) and
// nothing ever answers: a store that hangs.
class SilentListener {
 public:
  SilentListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      ADD_FAILURE() << "cannot listen on 127.0.0.1";
    port_ = ntohs(a.sin_port);
  }
  ~SilentListener() {
    if (fd_ >= 0) ::close(fd_);
  }
  std::string url(const std::string& db) const { return fmt::format("clickhouse://127.0.0.1:{}/{}", port_, db); }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

TEST_F(Fleet, AStoreThatNeverAnswersTimesOutWithOneLine) {
  SilentListener slow;
  auto p = run({sonde_bin(), "push", "-i", path("base.data"), "--to", slow.url("x"), "--timeout", "1", "--attempts", "2"});
  EXPECT_EQ(p.exit_code, 1) << p.err;
  EXPECT_NE(p.err.find("timed out waiting for the answer (after 2 attempts); nothing stored"), std::string::npos)
      << p.err;
  EXPECT_EQ(count_lines_with(p.err, ""), 1u) << p.err;
  auto r = run({sonde_bin(), "report", "-i", slow.url("x") + "?timeout=1"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("timed out waiting for the answer"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines_with(r.err, ""), 1u) << r.err;
}

// Starts argv with stderr to `err_file`; returns its pid.
pid_t start_process(const std::vector<std::string>& argv, const std::string& err_file) {
  pid_t pid = ::fork();
  if (pid == 0) {
    FILE* f = std::freopen(err_file.c_str(), "w", stderr);
    (void)f;
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Copies the recordings in as rotated files, as record --switch-output names them.
void rotate_in(const std::string& dir, const std::vector<std::string>& files) {
  std::filesystem::create_directories(dir);
  int n = 1;
  for (const auto& f : files)
    std::filesystem::copy_file(f, fmt::format("{}/prof.data.20261206000000{:02}", dir, n++));
}

// A process this test started, ended by its pid (SIGINT: a recorder ends
// its workload and closes its last file) and reaped if a check gave up.
struct Child {
  pid_t pid = -1;
  ~Child() {
    if (pid <= 0) return;
    ::kill(pid, SIGINT);
    ::waitpid(pid, nullptr, 0);
  }
  // Waits for it: its exit status (-1 when killed by a signal).
  int exit_status() {
    int status = 0;
    const bool reaped = ::waitpid(pid, &status, 0) == pid;
    pid = -1;
    return reaped && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
};

size_t rotated_count(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    n += std::regex_match(e.path().filename().string(), std::regex("prof\\.data\\.[0-9]+"));
  return n;
}

// What perf 6.1 reads in a recording: its samples, their period (the
// events' counts summed) and the samples it lost.
struct FileTotals {
  uint64_t samples = 0, period = 0, lost = 0;
};
FileTotals perf_totals(const std::string& file) {
  FileTotals t;
  auto stats = run({"/usr/bin/perf", "report", "-i", file, "--stats"});
  EXPECT_EQ(stats.exit_code, 0) << file << ": " << stats.err;
  std::smatch m;
  if (std::regex_search(stats.out, m, std::regex("SAMPLE events: *([0-9]+)"))) t.samples = std::stoull(m[1]);
  auto report = run({"/usr/bin/perf", "report", "-i", file, "--stdio", "--no-children", "-g", "none", "--sort", "comm"});
  EXPECT_EQ(report.exit_code, 0) << file << ": " << report.err;
  for (const auto& l : lines(report.out)) {
    if (std::regex_match(l, m, std::regex("# Event count \\(approx\\.\\): ([0-9]+)"))) t.period += std::stoull(m[1]);
    if (std::regex_match(l, m, std::regex("# Total Lost Samples: ([0-9]+)"))) t.lost += std::stoull(m[1]);
  }
  return t;
}

// The store stopped (by its pid) and started again during a continuous run:
// `sonde record --switch-output=1s` and `sonde agent` beside it, as
// docs/fleet.md runs them. While the store is down the closed files wait;
// once it is back they go, and the files the recorder closes after go too;
// the store's totals then equal what perf reads in the files, exactly.
TEST_F(Fleet, StoreStoppedDuringAContinuousRunLosesNothing) {
  const std::string dir = *dir_ / "outage", out = dir + "/prof.data", log_file = *dir_ / "outage-agent.err";
  std::filesystem::create_directories(dir);
  Child rec{start_process({sonde_bin(), "record", "-q", "-g", "--switch-output=1s", "-o", out, "--", path("two_mix"),
                           "3600", "50"},
                          *dir_ / "outage-record.err")};
  Child agent{start_process({sonde_bin(), "agent", "-o", out, "--to", server_->url("outage"), "--host", "h", "--pid",
                             std::to_string(rec.pid), "--drain", "--keep", "--max-backoff", "1"},
                            log_file)};
  auto log = [&] { return read_text(log_file); };
  auto pushed = [&] { return count_lines_with(log(), "sonde agent: pushed "); };
  ASSERT_TRUE(wait_until([&] { return pushed() >= 1; })) << log();  // the store is up: a first file goes
  server_->stop();
  const size_t closed_at_stop = rotated_count(dir);
  ASSERT_TRUE(wait_until([&] { return log().find("the store is down") != std::string::npos; })) << log();
  // Two more files close while it is down; they wait, unpushed.
  ASSERT_TRUE(wait_until([&] { return rotated_count(dir) >= closed_at_stop + 2; }));
  const size_t pushed_while_down = pushed();
  EXPECT_LT(pushed_while_down, rotated_count(dir));
  ASSERT_TRUE(server_->start()) << server_->error();
  ASSERT_TRUE(wait_until([&] { return log().find("the store is back") != std::string::npos; })) << log();
  // The push resumes: every file waiting is sent, then one the recorder
  // closes after the restart.
  const size_t closed_at_start = rotated_count(dir);
  ASSERT_TRUE(wait_until([&] { return pushed() > closed_at_start; })) << log();
  ASSERT_EQ(::kill(rec.pid, 0), 0) << "the recorder ended before the end of the test";
  ::kill(rec.pid, SIGINT);
  // The recorder ends its workload with SIGTERM, and exits with its status.
  EXPECT_EQ(rec.exit_status(), 128 + SIGTERM) << read_text(*dir_ / "outage-record.err");
  EXPECT_EQ(agent.exit_status(), 0) << log();
  // Totals: the store's against perf's reading of every file on disk.
  const size_t files = rotated_count(dir);
  FileTotals local;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const FileTotals t = perf_totals(e.path());
    local.samples += t.samples, local.period += t.period, local.lost += t.lost;
  }
  ASSERT_GT(local.samples, 0u);
  EXPECT_EQ(total("outage"), local.samples);
  EXPECT_EQ(server_->query("SELECT sum(period) FROM outage.sonde_samples FINAL"), std::to_string(local.period) + "\n");
  EXPECT_EQ(server_->query("SELECT count(), sum(samples), sum(lost_samples) FROM outage.sonde_recordings FINAL FORMAT "
                           "TabSeparated"),
            fmt::format("{}\t{}\t{}\n", files, local.samples, local.lost));
  const std::string l = log();
  EXPECT_EQ(count_lines_with(l, "the store is down"), 1u) << l;
  EXPECT_EQ(count_lines_with(l, "the store is back"), 1u) << l;
  EXPECT_NE(l.find(fmt::format("{} files pushed ({} samples in ", files, local.samples)), std::string::npos) << l;
  EXPECT_NE(l.find(fmt::format("0 failed and kept, 0 removed unpushed, {} samples lost while recording", local.lost)),
            std::string::npos)
      << l;
}

TEST_F(Fleet, AgentBesideARotatingRecordPushesEveryFileAsItCloses) {
  const std::string dir = *dir_ / "live";
  std::filesystem::create_directories(dir);
  pid_t rec = start_process({sonde_bin(), "record", "-q", "-g", "--switch-output=1s", "-o", dir + "/prof.data", "--",
                             path("two_mix"), "2.5", "50"},
                            *dir_ / "record.err");
  ASSERT_GT(rec, 0);
  auto r = run({sonde_bin(), "agent", "-o", dir + "/prof.data", "--to", server_->url("live"), "--host", "h", "--pid",
                std::to_string(rec), "--drain", "--keep"});
  int status = 0;
  ASSERT_EQ(::waitpid(rec, &status, 0), rec);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_text(*dir_ / "record.err");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // Every rotated file was pushed, and the store holds their samples.
  const size_t files = std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator());
  EXPECT_GE(files, 2u);
  EXPECT_NE(r.err.find(std::to_string(files) + " files pushed (" + std::to_string(total("live")) + " samples"),
            std::string::npos)
      << r.err;
}

TEST_F(Fleet, AgentKeepsAFileTheStoreRejectsAndCountsIt) {
  server_->query("CREATE DATABASE IF NOT EXISTS agent_rejecting");
  server_->query("CREATE TABLE IF NOT EXISTS agent_rejecting.sonde_samples (x UInt8, event_kind String) ENGINE = Memory");
  const std::string dir = *dir_ / "rejected";
  rotate_in(dir, {path("base.data")});
  auto r = run({sonde_bin(), "agent", "-o", dir + "/prof.data", "--to", server_->url("agent_rejecting"), "--drain"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string file = dir + "/prof.data.2026120600000001";
  EXPECT_NE(r.err.find(file + ": push failed for good (push: batch 1 of 1 failed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kept as " + file + ".failed"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(file + ".failed"));
  EXPECT_NE(r.err.find("0 files pushed (0 samples in 0 rows), 1 failed and kept"), std::string::npos) << r.err;
}

TEST_F(Fleet, AgentRemovesAndCountsFilesBeyondMaxFiles) {
  const std::string dir = *dir_ / "max";
  rotate_in(dir, {path("base.data"), path("new.data"), path("base.data")});
  auto r = run({sonde_bin(), "agent", "-o", dir + "/prof.data", "--to", server_->url("max"), "--drain",
                "--switch-max-files", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("removed " + dir + "/prof.data.2026120600000001 unpushed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("2 files pushed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 removed unpushed"), std::string::npos) << r.err;
}

}  // namespace
