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
  kFieldSrcline = 1u << 12,  // each frame's file:line below it
  kFieldSrccode = 1u << 13,  // the sampled line's source text below the sample
  kFieldInsn = 1u << 14,     // the sampled instruction's bytes
  kFieldAddr = 1u << 15,     // the sample's data address (record -d)
};

// The fields printed for each kind of event. perf keeps one set per event
// type; sonde needs two: tracepoints (whose defaults print the tracepoint's
// fields and no address) and every other event.
struct FieldSelection {
  bool enabled = false;     // false: sonde's own line format
  uint32_t tracepoint = 0;  // ScriptField bits
  uint32_t other = 0;
  // Fields taken out with -F -name: a call chain does not bring ip or sym
  // back (perf turns both on for events with call chains otherwise).
  uint32_t removed = 0;
  bool named = false;  // -F named every field: none is dropped
};

// perf script's defaults: comm,tid,cpu,time,event,trace for tracepoints;
// comm,tid,cpu,time,period,event,ip,sym,symoff,dso for the others (cpu is
// dropped where samples carry none).
FieldSelection default_script_fields();

// -F as perf parses it: "comm,tid,time" selects exactly these fields for
// every event; "+period,-ip" adds to and removes from the defaults (every
// name then carries its sign; trace is added to tracepoints only). Throws a
// usage error naming the field it does not know and the ones it does.
FieldSelection parse_script_fields(std::string_view list);

}  // namespace sonde::script
