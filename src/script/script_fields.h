// `sonde script -F FIELD,...`: perf script's field selection, printed the way
// perf 6.1 prints the same fields (so scripts written against `perf script
// -F` read sonde's output unchanged). Without -F, sonde script keeps its own
// line format (script_printer.h).
#pragma once

#include <cstdint>
#include <string_view>

namespace sonde::script {

enum ScriptField : uint32_t {
  kFieldComm = 1u << 0,
  kFieldPid = 1u << 1,
  kFieldTid = 1u << 2,
  kFieldCpu = 1u << 3,
  kFieldTime = 1u << 4,
  kFieldPeriod = 1u << 5,
  kFieldEvent = 1u << 6,
  kFieldTrace = 1u << 7,  // tracepoint fields, decoded SDT arguments
  kFieldIp = 1u << 8,     // the address, or the call chain when there is one
  kFieldSym = 1u << 9,
  kFieldSymOff = 1u << 10,
  kFieldDso = 1u << 11,
};

// "comm,tid,time" -> the field set. Throws a usage error naming the field
// it does not know and the ones it does.
uint32_t parse_script_fields(std::string_view list);

}  // namespace sonde::script
