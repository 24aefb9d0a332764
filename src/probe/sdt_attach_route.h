// Which kernel mechanism attaches SDT probe sites: one BPF uprobe_multi link
// per object file (Linux 6.6+, the default), or one uprobe-PMU perf event
// per site running the same BPF program (the fallback for older kernels,
// sdt_perf_event_attach.h). Both feed the same program and the same
// bpf-output events, so the recording is the same either way; they differ
// in set-up and teardown cost (docs/sdt.md).
#pragma once

#include <string_view>

namespace sonde::probe {

enum class SdtAttachRoute { Auto, Multi, PerfEvent };

// The route SONDE_SDT_ATTACH asks for: "auto" (or unset/empty), "multi",
// "perf-event". Anything else is a usage error (one line, before anything is
// opened), so a typo never silently picks a route.
SdtAttachRoute sdt_attach_route_from_env();
SdtAttachRoute parse_sdt_attach_route(std::string_view text);  // throws sonde::Error (usage)

// Auto becomes Multi when the kernel has uprobe_multi links, else PerfEvent;
// a forced route is kept as is (Multi on an old kernel then fails to attach
// with the kernel's reason).
SdtAttachRoute resolve_sdt_attach_route(SdtAttachRoute wanted);

const char* sdt_attach_route_name(SdtAttachRoute route);

}  // namespace sonde::probe
