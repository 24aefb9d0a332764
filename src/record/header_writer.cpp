#include "record/header_writer.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>

#include "util/fs.h"

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
  unsigned long long kb = 0;
  auto at = m->find("MemTotal:");
  if (at != std::string::npos) std::sscanf(m->c_str() + at, "MemTotal: %llu", &kb);
  return kb;
}

void string_feature(perf::StreamWriter& out, perf::FeatureId id, const std::string& s) {
  perf::FeatureEncoder e;
  e.string(s);
  out.write_feature(id, e.bytes());
}

}  // namespace

void write_header(perf::StreamWriter& out, const HeaderInfo& info) {
  out.write_pipe_header();
  for (const auto& ev : info.events) out.write_attr(ev.attr, ev.ids);

  utsname u{};
  ::uname(&u);
  string_feature(out, perf::kFeatHostname, u.nodename);
  string_feature(out, perf::kFeatOsRelease, u.release);
  string_feature(out, perf::kFeatVersion, info.version);
  string_feature(out, perf::kFeatArch, u.machine);
  {
    perf::FeatureEncoder e;
    e.u32(static_cast<uint32_t>(::sysconf(_SC_NPROCESSORS_CONF)));
    e.u32(static_cast<uint32_t>(::sysconf(_SC_NPROCESSORS_ONLN)));
    out.write_feature(perf::kFeatNrCpus, e.bytes());
  }
  std::string cpuinfo = read_small_file("/proc/cpuinfo").value_or("");
  string_feature(out, perf::kFeatCpuDesc, cpuinfo_field(cpuinfo, "model name"));
  // perf's x86 cpuid string: vendor,family,model,stepping.
  std::string vendor = cpuinfo_field(cpuinfo, "vendor_id");
  if (!vendor.empty()) {
    string_feature(out, perf::kFeatCpuId,
                   vendor + "," + cpuinfo_field(cpuinfo, "cpu family") + "," + cpuinfo_field(cpuinfo, "model") +
                       "," + cpuinfo_field(cpuinfo, "stepping"));
  }
  {
    perf::FeatureEncoder e;
    e.u64(total_mem_kb());
    out.write_feature(perf::kFeatTotalMem, e.bytes());
  }
  {
    perf::FeatureEncoder e;
    e.string_list(info.cmdline);
    out.write_feature(perf::kFeatCmdline, e.bytes());  // skipped if it would not fit the u16 size
  }
  out.write_feature(perf::kFeatEventDesc, perf::encode_event_desc(info.events));
  if (info.compression_level > 0) {
    perf::CompressedFeature c{0, perf::kCompressionZstd, static_cast<uint32_t>(info.compression_level), 0,
                              info.compressed_record_max};
    out.write_feature(perf::kFeatCompressed, {reinterpret_cast<const uint8_t*>(&c), sizeof c});
  }
  out.write_features_end();
}

void write_event_names(perf::StreamWriter& out, const std::vector<perf::EventDesc>& events) {
  for (const auto& ev : events)
    if (!ev.ids.empty()) out.write_event_update_name(ev.ids.front(), ev.name);
}

}  // namespace sonde::record
