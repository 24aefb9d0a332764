// One probe argument from DWARF: a variable's location at the probe address
// and the fields, indexes and type asked for, as a uprobe fetch expression
// (perf 6.1's convert_variable: -24(%bp), +8(%di), +0(+16(%di)):string).
#pragma once

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <string>

#include "probe/probe_definition.h"
#include "probe/trace_probe.h"

namespace sonde::probe {

struct FetchContext {
  Dwarf_Die* function = nullptr;  // the real (not inlined) subprogram
  Dwarf_Addr addr = 0;            // the probe address
  Dwarf_Op* frame_base = nullptr;  // DW_AT_frame_base at addr (the CFA resolved), or null
  size_t frame_base_ops = 0;
  std::string where;  // "handle_request" for messages
};

// Whether `var` has a location at ctx.addr that uprobes can fetch.
bool has_fetchable_location(Dwarf_Die* var, const FetchContext& ctx);
// Whether `var` lives at a fixed address (a static), which perf -V lists.
bool has_static_location(Dwarf_Die* var, const FetchContext& ctx);

// `spec` (a C variable, found as `var`) as a trace argument. Throws a
// usage error for a field or type that does not fit, a runtime error for a
// variable without a location at the probe address.
TraceArg fetch_variable(Dwarf_Die* var, const ProbeArgSpec& spec, const FetchContext& ctx);

// perf's name for an argument without NAME=: the last field's name, else the
// variable (with _TYPE when a type is given).
std::string default_arg_name(const ProbeArgSpec& spec);

}  // namespace sonde::probe
