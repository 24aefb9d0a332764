// One registration function per subcommand; each lives in its own cmd_*.cpp.
// A subcommand's callback does its work through libsonde and throws
// sonde::Error on failure; `exit_code` receives a non-error status (for
// `record`, the workload's exit status).
#pragma once

#include <CLI/CLI.hpp>

namespace sonde::cli {

void register_record(CLI::App& app, int& exit_code);
void register_script(CLI::App& app, int& exit_code);
void register_buildid_list(CLI::App& app, int& exit_code);
void register_sdt(CLI::App& app, int& exit_code);
void register_buildid_cache(CLI::App& app, int& exit_code);
void register_report(CLI::App& app, int& exit_code);
void register_convert(CLI::App& app, int& exit_code);
void register_list(CLI::App& app, int& exit_code);
void register_top(CLI::App& app, int& exit_code);
void register_diff(CLI::App& app, int& exit_code);
void register_annotate(CLI::App& app, int& exit_code);
void register_trace(CLI::App& app, int& exit_code);
void register_sched(CLI::App& app, int& exit_code);
void register_stat(CLI::App& app, int& exit_code);
void register_push(CLI::App& app, int& exit_code);
void register_agent(CLI::App& app, int& exit_code);
void register_probe(CLI::App& app, int& exit_code);
void register_version(CLI::App& app, int& exit_code);
void register_check(CLI::App& app, int& exit_code);
void register_kallsyms(CLI::App& app, int& exit_code);
void register_test(CLI::App& app, int& exit_code);
void register_inject(CLI::App& app, int& exit_code);
void register_evlist(CLI::App& app, int& exit_code);

}  // namespace sonde::cli
