#include "event_filters.h"

#include "util/error.h"

namespace sonde::cli {

void add_filter_option(CLI::App* cmd, std::vector<std::string>& filters) {
  cmd->add_option("--filter", filters,
                  "Tracepoint filter (the kernel's syntax, e.g. 'prev_state == 1') for the -e just before it")
      ->allow_extra_args(false);
}

std::vector<std::string> filters_per_event(const CLI::App& cmd, const std::vector<std::string>& filters) {
  std::vector<std::string> per_event;
  size_t next_filter = 0;
  // parse_order() lists every occurrence of every option, in order: the
  // only place where -e and --filter are seen interleaved.
  for (const CLI::Option* opt : cmd.parse_order()) {
    if (opt->check_name("-e")) per_event.emplace_back();
    if (!opt->check_name("--filter") || next_filter >= filters.size()) continue;
    const std::string& f = filters[next_filter++];
    if (per_event.empty()) throw_usage("--filter '{}' must follow a -e tracepoint", f);
    std::string& cur = per_event.back();
    cur = cur.empty() ? f : "(" + cur + ") && (" + f + ")";
  }
  return per_event;
}

}  // namespace sonde::cli
