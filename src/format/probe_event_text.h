// The text the kernel's print fmt gives a probe event's sample (uprobe and
// kprobe events: "(%lx) id=%d name=\"%s\" flags=0x%x", REC->__probe_ip, ...),
// as perf script prints it through libtraceevent: `(55d0c41c9149) id=100
// name="alpha" flags=0x0`, and `(FUNC <- RET)` for return probes. Only the
// plain conversions the kernel writes for probe arguments are evaluated.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "format/tracepoint_format.h"

namespace sonde::format {

// nullopt when `tf` is not a probe event or its print fmt holds anything
// else (the caller then prints the fields by name).
std::optional<std::string> format_probe_event(const TracepointFormat& tf, std::span<const uint8_t> raw);

}  // namespace sonde::format
