#include "format/record_names.h"

#include <array>

namespace sonde::format {

std::string_view record_type_name(uint32_t type) {
  // Kernel records 1..21, then perf's own from 64 (perf 6.1 util/event.c).
  static constexpr std::array<std::string_view, 22> kKernel = {
      "TOTAL",  "MMAP",         "LOST",       "COMM",       "EXIT",         "THROTTLE",        "UNTHROTTLE",
      "FORK",   "READ",         "SAMPLE",     "MMAP2",      "AUX",          "ITRACE_START",    "LOST_SAMPLES",
      "SWITCH", "SWITCH_CPU_WIDE", "NAMESPACES", "KSYMBOL", "BPF_EVENT",    "CGROUP",          "TEXT_POKE",
      "AUX_OUTPUT_HW_ID"};
  static constexpr std::array<std::string_view, 19> kUser = {
      "ATTR",         "EVENT_TYPE", "TRACING_DATA", "BUILD_ID",    "FINISHED_ROUND", "ID_INDEX",  "AUXTRACE_INFO",
      "AUXTRACE",     "AUXTRACE_ERROR", "THREAD_MAP", "CPU_MAP",   "STAT_CONFIG",    "STAT",      "STAT_ROUND",
      "EVENT_UPDATE", "TIME_CONV",  "FEATURE",      "COMPRESSED", "FINISHED_INIT"};
  if (type < kKernel.size()) return kKernel[type];
  if (type >= 64 && type - 64 < kUser.size()) return kUser[type - 64];
  return "UNKNOWN";
}

}  // namespace sonde::format
