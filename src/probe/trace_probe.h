// A resolved probe: what one line of tracefs' uprobe_events holds
// ("p:GROUP/EVENT PATH:0xOFFSET NAME=FETCH:TYPE ..."), written exactly as
// perf 6.1 writes it, and read back from the kernel's listing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sonde::probe {

struct TraceArg {
  std::string name;   // "" = the kernel names it argN
  std::string fetch;  // -24(%bp), +0(+16(%di)), $retval, %ax ...
  std::string type;   // s32, x64, string; "" = the kernel's default
  // fetch starts at a static variable (@NAME+OFF): its link-time address,
  // which the one-step route reads relative to the probe (not in tracefs).
  uint64_t symbol_address = 0;
};

struct TraceProbe {
  bool retprobe = false;
  std::string group;
  std::string event;
  std::string path;  // absolute
  uint64_t offset = 0;  // file offset (what uprobes take)
  std::vector<TraceArg> args;
  // What the probe came from (listing, messages); not written to tracefs.
  uint64_t address = 0;   // link-time address
  std::string function;   // the function it lies in
  std::string point;      // perf's "on" text: handle_request:1@/src/a.c
  std::string arg_names;  // perf's "with" text
  std::string raw;        // the kernel's line, when read from uprobe_events

  // The uprobe_events definition (perf probe -D's line).
  std::string definition() const;
};

// A line of uprobe_events as the kernel prints it.
std::optional<TraceProbe> parse_uprobe_event_line(const std::string& line);

// perf's group for probes in binary `path`: "probe_" + the file name up to
// its first '-' or '.' (probe_libc for libc.so.6).
std::string default_probe_group(const std::string& path);

}  // namespace sonde::probe
