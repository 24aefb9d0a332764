// An attr as perf 6.1 prints it in `perf report --header` ("# event : name
// = cycles, , id = { 1, 2 }, type = 0, size = 128, ..."): every field that
// is not zero, in perf's order (util/perf_event_attr_fprintf.c).
#pragma once

#include <string>
#include <string_view>

#include "format/features.h"

namespace sonde::format {

// "# event : ..." without the trailing newline.
std::string event_desc_line(const EventDesc& event);

// The attr's non-zero fields in perf's order, each as ", NAME<assign>VALUE"
// (assign: " = " in the header's event lines, ": " in perf evlist -v's).
std::string attr_fields_text(const perf_event_attr& attr, std::string_view assign);

}  // namespace sonde::format
