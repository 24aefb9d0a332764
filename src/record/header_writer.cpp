#include "record/header_writer.h"

#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>

#include "record/cpu_topology.h"
#include "util/fs.h"
#include "util/fields.h"
#include "util/parse_int.h"

namespace sonde::record {

namespace {

// "key : value" from /proc/cpuinfo (first CPU).
std::string cpuinfo_field(const std::string& cpuinfo, const std::string& key) {
  std::istringstream in(cpuinfo);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, colon);
    while (!k.empty() && (k.back() == ' ' || k.back() == '\t')) k.pop_back();
    if (k != key) continue;
    size_t v = line.find_first_not_of(' ', colon + 1);
    return v == std::string::npos ? "" : line.substr(v);
  }
  return "";
}

uint64_t total_mem_kb() {
  auto m = read_small_file("/proc/meminfo");
  if (!m) return 0;
  // "MemTotal:       16384000 kB"
  uint64_t kb = 0;
  auto at = m->find("MemTotal:");
  if (at == std::string::npos) return 0;
  std::string_view rest = std::string_view(*m).substr(at + 9);
  rest = rest.substr(0, rest.find('\n'));
  parse_uint_into(next_field(rest), kb);
  return kb;
}

void string_feature(format::StreamWriter& out, format::FeatureId id, const std::string& s) {
  format::FeatureEncoder e;
  e.string(s);
  out.write_feature(id, e.bytes());
}

}  // namespace

void write_header(format::StreamWriter& out, const HeaderInfo& info) {
  out.write_pipe_header();
  for (const auto& ev : info.events) out.write_attr(ev.attr, ev.ids);

  utsname u{};
  ::uname(&u);
  string_feature(out, format::kFeatHostname, u.nodename);
  string_feature(out, format::kFeatOsRelease, u.release);
  string_feature(out, format::kFeatVersion, info.version);
  string_feature(out, format::kFeatArch, u.machine);
  {
    format::FeatureEncoder e;
    e.u32(static_cast<uint32_t>(::sysconf(_SC_NPROCESSORS_CONF)));
    e.u32(static_cast<uint32_t>(::sysconf(_SC_NPROCESSORS_ONLN)));
    out.write_feature(format::kFeatNrCpus, e.bytes());
  }
  std::string cpuinfo = read_small_file("/proc/cpuinfo").value_or("");
  string_feature(out, format::kFeatCpuDesc, cpuinfo_field(cpuinfo, "model name"));
  // perf's x86 cpuid string: vendor,family,model,stepping.
  std::string vendor = cpuinfo_field(cpuinfo, "vendor_id");
  if (!vendor.empty()) {
    string_feature(out, format::kFeatCpuId,
                   vendor + "," + cpuinfo_field(cpuinfo, "cpu family") + "," + cpuinfo_field(cpuinfo, "model") +
                       "," + cpuinfo_field(cpuinfo, "stepping"));
  }
  {
    format::FeatureEncoder e;
    e.u64(total_mem_kb());
    out.write_feature(format::kFeatTotalMem, e.bytes());
  }
  {
    format::FeatureEncoder e;
    e.string_list(info.cmdline);
    out.write_feature(format::kFeatCmdline, e.bytes());  // skipped if it would not fit the u16 size
  }
  out.write_feature(format::kFeatEventDesc, format::encode_event_desc(info.events));
  // Features go in perf's id order, which is the order perf prints a pipe's.
  auto topology = encode_cpu_topology(static_cast<uint32_t>(::sysconf(_SC_NPROCESSORS_CONF)));
  if (!topology.empty()) out.write_feature(format::kFeatCpuTopology, topology);
  if (info.clockid >= 0) {
    // CLOCKID: the clock's resolution in ns (perf's clockid_res_ns).
    timespec res{};
    ::clock_getres(info.clockid, &res);
    format::FeatureEncoder e;
    e.u64(static_cast<uint64_t>(res.tv_sec) * 1000000000ull + static_cast<uint64_t>(res.tv_nsec));
    out.write_feature(format::kFeatClockId, e.bytes());
  }
  if (info.compression_level > 0) {
    format::CompressedFeature c{0, format::kCompressionZstd, static_cast<uint32_t>(info.compression_level), 0,
                              info.compressed_record_max};
    out.write_feature(format::kFeatCompressed, {reinterpret_cast<const uint8_t*>(&c), sizeof c});
  }
  if (info.clockid >= 0) {
    // CLOCK_DATA: {version 1, clockid, wall-clock ns, clockid ns} read
    // together, so readers can show wall-clock times (perf script --ns -F +tod).
    timespec wall{}, clk{};
    ::clock_gettime(CLOCK_REALTIME, &wall);
    ::clock_gettime(info.clockid, &clk);
    auto ns = [](const timespec& t) { return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec); };
    format::FeatureEncoder e;
    e.u32(1);
    e.u32(static_cast<uint32_t>(info.clockid));
    e.u64(ns(wall));
    e.u64(ns(clk));
    out.write_feature(format::kFeatClockData, e.bytes());
  }
  out.write_features_end();
}

void write_event_names(format::StreamWriter& out, const std::vector<format::EventDesc>& events) {
  for (const auto& ev : events)
    if (!ev.ids.empty()) out.write_event_update_name(ev.ids.front(), ev.name);
}

}  // namespace sonde::record
