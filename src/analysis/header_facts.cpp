#include "analysis/header_facts.h"
#include "analysis/directory_reader.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>

#include "format/attr_text.h"
#include "format/features.h"
#include "util/byte_reader.h"

namespace sonde::analysis {

using namespace sonde::format;

namespace {

// perf's feature names (util/header.c feat_ops), by id.
constexpr const char* kFeatureNames[kFeatLast] = {
    "",         "TRACING_DATA", "BUILD_ID",   "HOSTNAME",     "OSRELEASE",    "VERSION",      "ARCH",
    "NRCPUS",   "CPUDESC",      "CPUID",      "TOTAL_MEM",    "CMDLINE",      "EVENT_DESC",   "CPU_TOPOLOGY",
    "NUMA_TOPOLOGY", "BRANCH_STACK", "PMU_MAPPINGS", "GROUP_DESC", "AUXTRACE",  "STAT",         "CACHE",
    "SAMPLE_TIME", "MEM_TOPOLOGY", "CLOCKID",  "DIR_FORMAT",   "BPF_PROG_INFO", "BPF_BTF",     "COMPRESSED",
    "CPU_PMU_CAPS", "CLOCK_DATA", "HYBRID_TOPOLOGY", "PMU_CAPS"};

std::string usec_time(uint64_t ns) { return fmt::format("{}.{:06}", ns / 1000000000, ns % 1000000000 / 1000); }

// "# cpu pmu capabilities: a=1, b=2" (perf's print_per_cpu_pmu_caps).
void pmu_caps(ByteReader& r, uint32_t nr, const std::string& pmu, std::string& out) {
  if (nr == 0) return void(out += fmt::format("# {} pmu capabilities: not available\n", pmu));
  out += fmt::format("# {} pmu capabilities: ", pmu);
  std::string cap;
  for (uint32_t i = 0; i < nr && read_feature_string(r, cap); ++i) { out += i ? ", " : ""; out += cap; }
  out += '\n';
}

void clock_data(ByteReader& r, std::string& out);

void print_recording_feature(uint32_t id, ByteReader& r, std::string& out);

void print_feature(uint32_t id, std::span<const uint8_t> payload, std::string& out) {
  ByteReader r(payload);
  std::string s;
  uint32_t a = 0, b = 0;
  uint64_t u = 0;
  auto line = [&](const char* label) {
    if (read_feature_string(r, s)) out += fmt::format("# {} : {}\n", label, s);
  };
  switch (id) {
    case kFeatHostname: return line("hostname");
    case kFeatOsRelease: return line("os release");
    case kFeatVersion: return line("perf version");
    case kFeatArch: return line("arch");
    case kFeatCpuDesc: return line("cpudesc");
    case kFeatCpuId: return line("cpuid");
    case kFeatNrCpus:
      if (r.read(a) && r.read(b)) out += fmt::format("# nrcpus online : {}\n# nrcpus avail : {}\n", b, a);
      return;
    case kFeatTotalMem:
      if (r.read(u)) out += fmt::format("# total memory : {} kB\n", u);
      return;
    case kFeatCmdline:
      if (auto args = decode_string_list(payload)) {
        out += "# cmdline : ";
        for (const auto& arg : *args) out += arg + " ";
        out += '\n';
      }
      return;
    case kFeatEventDesc:
      if (auto events = decode_event_desc(payload))
        for (const auto& e : *events) out += event_desc_line(e) + "\n";
      return;
    case kFeatCpuTopology:
    case kFeatNumaTopology:
    case kFeatCache:
    case kFeatMemTopology:
    case kFeatHybridTopology:
      out += fmt::format("# {} info available, use -I to display\n", kFeatureNames[id]);
      return;
    case kFeatBranchStack: out += "# contains samples with branch stack\n"; return;
    case kFeatAuxtrace: out += "# contains AUX area data (e.g. instruction trace)\n"; return;
    case kFeatStat: out += "# contains stat data\n"; return;
    default:
      return print_recording_feature(id, r, out);
  }
}

// The features about the recording itself and its PMUs.
void print_recording_feature(uint32_t id, ByteReader& r, std::string& out) {
  std::string s;
  uint32_t a = 0, b = 0;
  uint64_t u = 0;
  switch (id) {
    case kFeatPmuMappings: {
      if (!r.read(a) || a == 0) return void(out += "# pmu mappings: not available\n");
      const char* sep = "# pmu mappings: ";
      for (uint32_t i = 0; i < a && r.read(b) && read_feature_string(r, s); ++i, sep = ", ")
        out += fmt::format("{}{} = {}", sep, s, b);
      out += '\n';
      return;
    }
    case kFeatSampleTime: {
      uint64_t first = 0, last = 0;
      if (!r.read(first) || !r.read(last)) return;
      out += fmt::format("# time of first sample : {}\n# time of last sample : {}\n", usec_time(first), usec_time(last));
      out += fmt::format("# sample duration : {:10.3f} ms\n", double(last - first) / 1e6);
      return;
    }
    case kFeatClockId:
      if (r.read(u)) out += fmt::format("# clockid frequency: {} MHz\n", u * 1000);
      return;
    case kFeatDirFormat:
      if (r.read(u)) out += fmt::format("# directory data version : {}\n", u);
      return;
    case kFeatCompressed: {
      uint32_t version = 0, type = 0, level = 0, ratio = 0;
      if (r.read(version) && r.read(type) && r.read(level) && r.read(ratio))
        out += fmt::format("# compressed : {}, level = {}, ratio = {}\n", type == 1 ? "Zstd" : "Unknown", level, ratio);
      return;
    }
    case kFeatCpuPmuCaps:
      if (r.read(a)) pmu_caps(r, a, "cpu", out);
      return;
    case kFeatPmuCaps:
      if (r.read(a))
        for (uint32_t i = 0; i < a && r.read(b); ++i) {
          ByteReader caps = r;  // the caps, then the PMU's name after them
          for (uint32_t c = 0; c < b && read_feature_string(r, s); ++c) {
          }
          if (read_feature_string(r, s)) pmu_caps(caps, b, s, out);
        }
      return;
    case kFeatClockData:
      clock_data(r, out);
      return;
    default:  // TRACING_DATA, BUILD_ID, GROUP_DESC, BPF_*: nothing without -I
      return;
  }
}

// perf's clockid_name(): the clocks perf record -k accepts.
const char* clock_name(uint32_t id) {
  static const char* const names[] = {"realtime", "monotonic", nullptr, nullptr, "monotonic_raw", nullptr, nullptr,
                                      "boottime", nullptr, nullptr, nullptr, "tai"};
  return id < std::size(names) && names[id] ? names[id] : "unknown";
}

// CLOCK_DATA {u32 version, u32 clockid, u64 TOD ns, u64 clockid ns}, as
// perf 6.1's print_clock_data prints it (local time, like perf).
void clock_data(ByteReader& r, std::string& out) {
  uint32_t version = 0, clockid = 0;
  uint64_t tod = 0, clk = 0;
  if (!r.read(version) || !r.read(clockid) || !r.read(tod) || !r.read(clk)) return;
  const time_t tod_s = static_cast<time_t>(tod / 1000000000);
  const int tod_us = static_cast<int>(tod % 1000000000 / 1000);
  std::tm lt{};
  char date[64] = "<error>";
  std::string when = "<error>";
  if (::localtime_r(&tod_s, &lt) && std::strftime(date, sizeof date, "%F %T", &lt))
    when = fmt::format("{}.{:06d}", date, tod_us);
  out += fmt::format("# clockid: {} ({})\n", clock_name(clockid), clockid);
  out += fmt::format("# reference time: {} = {}.{:06d} (TOD) = {}.{:09d} ({})\n", when, static_cast<long>(tod_s), tod_us,
                     clk / 1000000000, clk % 1000000000, clock_name(clockid));
}

std::string captured_on(const std::string& path) {
  struct stat st{};
  int rc = path == "-" ? ::fstat(STDIN_FILENO, &st) : ::stat(path.c_str(), &st);
  if (rc != 0) return "\n";
  char text[64];
  time_t t = st.st_mtime;
  return ::ctime_r(&t, text) ? text : "\n";
}

}  // namespace

std::string header_facts_text(const Session& session, const RecordReader& reader, const std::string& path) {
  const FileHeaderFacts& fh = reader.file_header();
  std::string out = "# ========\n";
  out += "# captured on    : " + captured_on(path);
  out += "# header version : 1\n";
  out += fmt::format("# data offset    : {}\n# data size      : {}\n# feat offset    : {}\n", fh.data_offset,
                     fh.data_size, fh.data_offset + fh.data_size);
  if (!reader.file_mode()) out += "# ========\n#\n";
  for (uint32_t id = 1; id < kFeatLast; ++id) {
    auto payload = session.feature(static_cast<FeatureId>(id));
    const bool present = reader.file_mode() ? ((fh.features[id / 64] >> (id % 64)) & 1) != 0 : !payload.empty();
    if (present) print_feature(id, payload, out);
  }
  if (!reader.file_mode()) return out;
  out += "# missing features: ";
  for (uint32_t id = 1; id < kFeatLast; ++id)
    if (!((fh.features[id / 64] >> (id % 64)) & 1)) out += std::string(kFeatureNames[id]) + " ";
  out += "\n# ========\n#\n";
  return out;
}

std::string read_header_facts(const std::string& path) {
  auto reader = open_input(path);
  Session session;
  RecordView rec;
  while (reader->next(rec))
    if (!session.observe(rec)) break;
  return header_facts_text(session, *reader, path);
}

}  // namespace sonde::analysis
