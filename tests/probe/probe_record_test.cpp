// Events defined by `sonde probe`, recorded by `sonde record` and by
// `perf record`: every hit carries the values the fixture itself printed,
// and perf script reads the same values from both recordings.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <sstream>

#include "probe/probe_test_env.h"

using namespace sonde::test;

namespace {

constexpr int kCalls = 4;

// "EVENT: VALUES" for each sample of perf script's output, in order.
std::vector<std::string> hits(const std::string& script, const std::string& group) {
  std::vector<std::string> out;
  for (const auto& line : lines(script)) {
    size_t at = line.find(" " + group + ":");
    size_t paren = line.find(") ", at);
    if (at == std::string::npos || paren == std::string::npos) continue;
    size_t colon = line.find(": ", at);
    out.push_back(line.substr(at + group.size() + 2, colon - at - group.size() - 2) + ": " + line.substr(paren + 2));
  }
  return out;
}

// What the probes must show, from the fixture's own output. The loop line
// has `loop_sites` addresses (two at -O0), each hit once per iteration.
std::vector<std::string> expected_hits(const std::string& fixture_out, const std::string& loop_event,
                                       size_t loop_sites) {
  std::vector<std::string> out;
  long prev_sum = 0;
  int id, flags, value, factor, ret, i;
  long size, r, sum;
  char name[32];
  for (const auto& l : lines(fixture_out)) {
    if (sscanf(l.c_str(), "handle_request id=%d size=%ld name=%31s flags=%d ret=%ld", &id, &size, name, &flags, &r) == 5)
      out.push_back(fmt::format("handle_request: id={} size={} name=\"{}\" flags={}", id, size, name, flags));
    else if (sscanf(l.c_str(), "scale value=%d factor=%d ret=%d", &value, &factor, &ret) == 3) {
      out.push_back(fmt::format("scale: value={} factor=0x{:x}", value, factor));
      out.push_back(fmt::format("scale__return: arg1=0x{:x}", ret));
    } else if (sscanf(l.c_str(), "loop i=%d sum=%ld", &i, &sum) == 2) {
      for (size_t k = 0; k < loop_sites; ++k) out.push_back(fmt::format("{}: i={} sum={}", loop_event, i, prev_sum));
      prev_sum = sum;
    }
  }
  return out;
}

std::string loop_relative_line() {
  return std::to_string(ProbeFixture::source_line("sum += r + s;") - ProbeFixture::source_line("int main(int argc"));
}

class ProbeRecord : public ::testing::TestWithParam<const char*> {};

INSTANTIATE_TEST_SUITE_P(Opt, ProbeRecord, ::testing::Values("-O0", "-O2"),
                         [](const auto& info) { return std::string(info.param + 1); });

}  // namespace

TEST_P(ProbeRecord, ArgumentValuesEqualTheFixturesAndPerfRecords) {
  TempDir dir;
  ProbeFixture bin(dir, GetParam());
  ASSERT_TRUE(bin.ok());
  std::string x = "-q -x " + quoted(bin.path()) + " ";
  std::string loop = "main:" + loop_relative_line();
  for (std::string def : {std::string("handle_request req->id req->size req->name:string flags"),
                          std::string("scale value factor"), std::string("scale%return $retval"), loop + " i sum"}) {
    auto r = sonde_probe(x + sonde::test::quoted(def));
    ASSERT_EQ(r.exit_code, 0) << def << "\n" << r.err;
  }
  std::string loop_event = "main_L" + loop_relative_line();
  std::string events;
  for (const char* e : {"handle_request", "scale", "scale__return"}) events += " -e " + bin.event(e);
  events += " -e " + bin.event(loop_event);
  auto rec = sh(quoted(sonde_bin()) + " record -q -o " + quoted(dir / "sonde.data") + events + " -- " +
                quoted(bin.path()) + " " + std::to_string(kCalls));
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  size_t loop_sites = 0;
  for (const auto& l : bin.events()) loop_sites += l.find("/" + loop_event + " ") != std::string::npos;
  ASSERT_GE(loop_sites, 1u);
  auto expected = expected_hits(rec.out, loop_event, loop_sites);
  ASSERT_EQ(expected.size(), (3u + loop_sites) * kCalls) << rec.out;

  auto ours = sh("perf script -i " + quoted(dir / "sonde.data") + " 2>&1");
  ASSERT_EQ(ours.exit_code, 0) << ours.out;
  auto our_hits = hits(ours.out, bin.group());
  // The loop line's hit comes before the print of that iteration; compare as sets of sequences per event.
  auto sorted = [](std::vector<std::string> v) { return std::sort(v.begin(), v.end()), v; };
  EXPECT_EQ(sorted(our_hits), sorted(expected)) << ours.out;

  auto perf_rec = sh("perf record -q -o " + quoted(dir / "perf.data") + events + " -- " + quoted(bin.path()) + " " +
                     std::to_string(kCalls) + " >/dev/null 2>&1");
  ASSERT_EQ(perf_rec.exit_code, 0) << perf_rec.err;
  auto theirs = sh("perf script -i " + quoted(dir / "perf.data") + " 2>&1");
  EXPECT_EQ(our_hits, hits(theirs.out, bin.group())) << theirs.out;

  // sonde script prints a probe event's fields through its print fmt, as
  // perf does ("(ADDR) id=100 name=\"alpha\"", "(FUNC <- RET) arg1=0xe"), on both recordings.
  for (const char* data : {"sonde.data", "perf.data"}) {
    auto perf_text = sh("perf script -F event,trace -i " + quoted(dir / data) + " 2>/dev/null");
    auto sonde_text = sh(quoted(sonde_bin()) + " script -F event,trace -i " + quoted(dir / data));
    ASSERT_EQ(sonde_text.exit_code, 0) << sonde_text.err;
    EXPECT_EQ(sonde_text.out, perf_text.out) << data << ": " << first_difference(sonde_text.out, perf_text.out);
  }
}

TEST(ProbeRecordInline, EveryInlinedCopyIsHit) {
  TempDir dir;
  ProbeFixture bin(dir, "-O0");
  ASSERT_TRUE(bin.ok());
  auto r = sonde_probe("-q -x " + quoted(bin.path()) + " 'twice x'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(bin.events().size(), 3u);
  auto rec = sh(quoted(sonde_bin()) + " record -q -o " + quoted(dir / "d") + " -e " + bin.event("twice") + " -- " +
                quoted(bin.path()) + " 2");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  long sum = 0;
  int sink = 0;
  for (const auto& l : lines(rec.out)) sscanf(l.c_str(), "sum=%ld sink=%d", &sum, &sink);
  auto script = sh("perf script -i " + quoted(dir / "d") + " 2>&1");
  std::vector<std::string> want = {"twice: x=2", "twice: x=0", fmt::format("twice: x={}", static_cast<int>(sum))};
  EXPECT_EQ(hits(script.out, bin.group()), want) << script.out;
}
