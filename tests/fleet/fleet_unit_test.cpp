// The fleet module without a server: store URLs, query parameters into SQL,
// TabSeparated and chunked answers, labels, and stacks through the codec.
#include <gtest/gtest.h>

#include "analysis/profile.h"
#include "fleet/clickhouse.h"
#include "fleet/fleet_query.h"
#include "fleet/http_client.h"
#include "fleet/push.h"
#include "fleet/stack_codec.h"
#include "fleet/store_listing.h"
#include "fleet/store_url.h"
#include "util/error.h"

using namespace sonde;
using namespace sonde::fleet;

namespace {

std::string usage_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind() == ErrorKind::Usage ? e.what() : std::string("runtime: ") + e.what();
  }
  return "no error";
}

TEST(FleetUrl, ParsesHostPortDatabaseAndParameters) {
  auto u = parse_store_url("clickhouse://127.0.0.1:8124/prof?service=api&host=web-%2A&label.zone=eu");
  EXPECT_EQ(u.host, "127.0.0.1");
  EXPECT_EQ(u.port, 8124);
  EXPECT_EQ(u.database, "prof");
  EXPECT_EQ(u.params.at("host"), "web-*");
  EXPECT_EQ(u.params.at("label.zone"), "eu");
  EXPECT_EQ(parse_store_url("clickhouse://db.local/p").port, 8123);
  auto v6 = parse_store_url("clickhouse://[::1]:9000/p");
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.port, 9000);
  EXPECT_EQ(parse_store_url("clickhouse://[fe80::1]/p").host, "fe80::1");
}

TEST(FleetUrl, RejectsWhatIsNotAStore) {
  EXPECT_NE(usage_message([] { parse_store_url("clickhouse://127.0.0.1:8123"); }).find("no database"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_store_url("clickhouse://127.0.0.1:8123/"); }).find("no database"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_store_url("clickhouse://h:0/d"); }).find("port '0'"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_store_url("clickhouse://h/d;drop"); }).find("not a name"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_store_url("clickhouse://h/d?novalue"); }).find("not KEY=VALUE"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_store_url("clickhouse://[::1/d"); }).find("[IPv6 address]"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_store_url("clickhouse://[::1]x/d"); }).find("':PORT' must follow"),
            std::string::npos);
}

TEST(FleetQuery, ParametersBecomeConditions) {
  auto u = parse_store_url("clickhouse://h/d?host=web-*&service=api&since=2h&until=600&label.zone=e?");
  const std::string w = where_clause(u, 10000);
  EXPECT_NE(w.find("match(host, '^web-.*$')"), std::string::npos) << w;
  EXPECT_NE(w.find("service = 'api'"), std::string::npos) << w;
  EXPECT_NE(w.find("bucket >= toDateTime(2800)"), std::string::npos) << w;
  EXPECT_NE(w.find("bucket < toDateTime(600)"), std::string::npos) << w;
  EXPECT_NE(w.find("match(label_values[indexOf(label_keys, 'zone')], '^e.$')"), std::string::npos) << w;
  EXPECT_EQ(glob_to_regex("a.b*"), "^a\\.b.*$");
  EXPECT_EQ(ClickHouse::quote("it's \\"), "'it\\'s \\\\'");
  EXPECT_NE(usage_message([&] { where_clause(parse_store_url("clickhouse://h/d?x=1"), 0); }).find("unknown parameter 'x'"),
            std::string::npos);
  EXPECT_NE(usage_message([] { parse_time_param("since", "2w", 0); }).find("not a duration"), std::string::npos);
  // Bounded to ClickHouse's DateTime: no overflow of the count times its unit.
  EXPECT_NE(usage_message([] { parse_time_param("since", "9223372036854775807d", 10000); }).find("not a duration"),
            std::string::npos);
  EXPECT_NE(usage_message([] { parse_time_param("since", "2d", 10000); }).find("before 1970"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_time_param("since", "-5", 10000); }).find("not a duration"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_time_param("since", "4294967296", 10000); }).find("not a duration"),
            std::string::npos);
  EXPECT_EQ(parse_time_param("until", "4294967295", 10000), 4294967295);
  EXPECT_EQ(request_timeout(parse_store_url("clickhouse://h/d?timeout=5")), std::chrono::seconds(5));
  EXPECT_NE(usage_message([] { request_timeout(parse_store_url("clickhouse://h/d?timeout=5s")); }).find("timeout='5s'"),
            std::string::npos);
}

TEST(FleetAnswers, TabSeparatedAndChunked) {
  auto rows = parse_tsv("a\\tb\tc\\\\d\n1\t\n");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][0], "a\tb");
  EXPECT_EQ(rows[0][1], "c\\d");
  EXPECT_EQ(rows[1].size(), 2u);
  EXPECT_EQ(decode_chunked("3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"), "abcde");
  EXPECT_NE(usage_message([] { decode_chunked("ff\r\nabc"); }).find("cut short"), std::string::npos);
  EXPECT_EQ(url_encode("a b&c"), "a%20b%26c");
}

TEST(FleetLabels, KeyEqualsValue) {
  EXPECT_EQ(parse_label("zone=eu-1"), std::make_pair(std::string("zone"), std::string("eu-1")));
  EXPECT_EQ(parse_label("k="), std::make_pair(std::string("k"), std::string()));
  EXPECT_NE(usage_message([] { parse_label("zone"); }).find("not KEY=VALUE"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_label("=x"); }).find("not KEY=VALUE"), std::string::npos);
}

TEST(FleetStacks, EncodeDecodeKeepsFramesAndSharesPrefixes) {
  analysis::Profile p;
  p.mappings.push_back({0x1000, 0x2000, 0, p.intern("/bin/app"), p.intern("abcd"), false, 0});
  p.functions.push_back({p.intern("main"), p.intern("main"), 0, 0, true});
  p.functions.push_back({p.intern("work"), p.intern("_Z4workv"), 0, 0, true});
  p.locations.push_back({0, 0x1100, 0x100, 0, 0x10, false, {}});
  p.locations.push_back({0, 0x1200, 0x200, 1, 0x8, false, {}});
  p.nodes.push_back({UINT32_MAX, 0, 0});
  p.nodes.push_back({0, 1, 1});
  auto frames = encode_stack(p, 1);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_NE(stack_hash(frames), stack_hash(encode_stack(p, 0)));
  analysis::Profile q;
  StackDecoder d(q);
  const uint32_t leaf = d.add_stack(frames);
  const uint32_t root = d.add_stack(encode_stack(p, 0));
  EXPECT_EQ(q.nodes.size(), 2u);  // the root node is shared
  EXPECT_EQ(q.nodes[leaf].parent, root);
  EXPECT_EQ(encode_stack(q, leaf), frames);
  EXPECT_EQ(d.add_stack({"broken"}), UINT32_MAX);
  EXPECT_EQ(d.bad_frames(), 1u);
}

}  // namespace

namespace {

// An event's kind: the one the store keeps (event_kind, the 13th column);
// rows pushed before that column existed (empty, or an answer of 12
// columns) get it from the event's name and unit, as before.
TEST(FleetAnswers, TheStoredKindWinsAndOlderRowsAreClassifiedByNameAndUnit) {
  auto row = [](std::string event, std::string unit, std::vector<std::string> kind) {
    std::vector<std::string> r = {event, unit, "0", "0", "app", "7", "8", "1", "0", "1", "10", "1800000000"};
    r.insert(r.end(), kind.begin(), kind.end());
    return r;
  };
  const analysis::Profile p = profile_from_answers(
      {row("%p:hit", "events", {"sdt-hit"}), row("offcpu-time", "nanoseconds", {""}),
       row("cpu-clock", "nanoseconds", {}), row("sched:sched_switch", "events", {"tracepoint"}),
       row("odd", "events", {"no-such-kind"})},
      {});
  ASSERT_EQ(p.events.size(), 5u);
  auto kind_of = [&](std::string_view name) {
    for (const auto& e : p.events)
      if (e.name == name) return e.kind;
    return format::EventKind::kCpuTime;
  };
  EXPECT_EQ(kind_of("%p:hit"), format::EventKind::kSdtHit) << "stored: by name and unit it would be a count";
  EXPECT_EQ(kind_of("offcpu-time"), format::EventKind::kOffcpuBlocked) << "empty: by its name";
  EXPECT_EQ(kind_of("cpu-clock"), format::EventKind::kCpuTime) << "12 columns: by its unit";
  EXPECT_EQ(kind_of("sched:sched_switch"), format::EventKind::kTracepoint);
  EXPECT_EQ(kind_of("odd"), format::EventKind::kCount) << "an unknown name: by name and unit";
}

// script's listing: a row per entry with its bucket, samples, host and
// labels; a row short of the host and labels columns is skipped.
TEST(FleetListing, RowsBecomeEntriesInPerfScriptsLayout) {
  const std::vector<std::vector<std::string>> rows = {
      {"cpu-clock", "nanoseconds", "0", "0", "app", "7", "8", "1", "42", "3", "750", "1800000000", "cpu-time", "web-1",
       "zone=eu"},
      {"cpu-clock", "nanoseconds", "0", "0", "app", "7", "8", "1", "42", "2", "500", "1800000000", "cpu-time"},
      {"%p:hit", "events", "0", "1", "app", "7", "9", "0", "43", "1", "1", "1800000060", "", "web-2", ""}};
  const std::vector<std::vector<std::string>> stacks = {
      {"42", "0\x1f" "1\x1f/bin/app\x1f\x1fwork\x1fwork\x1f" "1\x1f\x1f" "401000\x1f" "1000\x1f" "10"}};
  const StoreListing l = listing_from_answers(rows, stacks);
  ASSERT_EQ(l.profile.samples.size(), 2u);
  ASSERT_EQ(l.extras.size(), 2u);
  EXPECT_EQ(l.extras[0], "samples=3 host=web-1 zone=eu");
  EXPECT_EQ(l.extras[1], "samples=1 host=web-2");
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  print_store_listing(l, 0, false, f);
  std::rewind(f);
  std::string text(4096, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), f));
  std::fclose(f);
  EXPECT_EQ(text,
            "app       7/8       [001] 1800000000.000000:        750 cpu-clock: samples=3 host=web-1 zone=eu\n"
            "\t          401000 work+0x10 (/bin/app)\n\n"
            "app       7/9       [000] 1800000060.000000:          1 %p:hit: samples=1 host=web-2\n\n");
}

}  // namespace
