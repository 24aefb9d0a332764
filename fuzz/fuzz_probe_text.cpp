// `sonde probe`'s text parsers: perf's `probes` file of a build-id cache
// entry (written by perf, sonde or anyone with write access to the cache),
// uprobe_events lines and probe definitions. The first byte picks the parser.
#include <string>

#include "probe/probe_definition.h"
#include "probe/probes_file.h"
#include "probe/trace_probe.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sonde::probe;
  if (size < 1) return 0;
  std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 3) {
    case 0: {
      auto entries = parse_probes_file(text);
      // What is written back parses to the same entries.
      auto again = parse_probes_file(format_probes_file(entries));
      if (again.size() != entries.size()) __builtin_trap();
      break;
    }
    case 1:
      if (auto p = parse_uprobe_event_line(text)) (void)p->definition();
      break;
    default:
      try {
        auto d = parse_probe_definition(text);
        (void)d.point_text();
        for (const auto& a : d.args) (void)a.text();
      } catch (const sonde::Error&) {
        // a usage error is the expected answer to bad syntax
      }
  }
  return 0;
}
