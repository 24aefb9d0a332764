// An attr as perf 6.1 prints it in `perf report --header` ("# event : name
// = cycles, , id = { 1, 2 }, type = 0, size = 128, ..."): every field that
// is not zero, in perf's order (util/perf_event_attr_fprintf.c).
#pragma once

#include <string>

#include "format/features.h"

namespace sonde::format {

// "# event : ..." without the trailing newline.
std::string event_desc_line(const EventDesc& event);

}  // namespace sonde::format
