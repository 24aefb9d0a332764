#include "probe/sdt_attach_route.h"

#include <cstdlib>
#include <string>

#include "probe/sdt_bpf.h"
#include "util/error.h"

namespace sonde::probe {

SdtAttachRoute parse_sdt_attach_route(std::string_view text) {
  if (text.empty() || text == "auto") return SdtAttachRoute::Auto;
  if (text == "multi") return SdtAttachRoute::Multi;
  if (text == "perf-event") return SdtAttachRoute::PerfEvent;
  throw_usage("sdt: SONDE_SDT_ATTACH='{}' is not one of auto, multi, perf-event", std::string(text));
}

SdtAttachRoute sdt_attach_route_from_env() {
  const char* v = std::getenv("SONDE_SDT_ATTACH");
  return parse_sdt_attach_route(v ? std::string_view(v) : std::string_view());
}

SdtAttachRoute resolve_sdt_attach_route(SdtAttachRoute wanted) {
  if (wanted != SdtAttachRoute::Auto) return wanted;
  return uprobe_multi_supported() ? SdtAttachRoute::Multi : SdtAttachRoute::PerfEvent;
}

const char* sdt_attach_route_name(SdtAttachRoute route) {
  switch (route) {
    case SdtAttachRoute::Auto: return "auto";
    case SdtAttachRoute::Multi: return "multi";
    case SdtAttachRoute::PerfEvent: return "perf-event";
  }
  return "?";
}

}  // namespace sonde::probe
