// The one channel for what the library says besides its results and its
// errors: warnings (something was lost or not done: "PREFIX: warning: ...")
// and notes (facts about the input or the run: "PREFIX: ..."). The CLI owns
// it: main() sets the prefix to the subcommand's ("sonde record"), and a
// subcommand's -q silences it. Library code never writes to stderr itself
// (tests/rules/source_rules.py checks), so one switch governs it all.
//
// Lines are written whole (one fputs each), so lines from several threads
// (the recorder's extensions, drains) never interleave mid-line.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace sonde {

// The CLI's switches. Defaults: prefix "sonde", not quiet.
void set_diagnostics_prefix(std::string prefix);
void set_diagnostics_quiet(bool quiet);
bool diagnostics_quiet();

// Where lines go instead of stderr (tests); returns the previous sink. An
// empty function restores stderr. The line has no newline.
using DiagnosticSink = std::function<void(std::string_view line)>;
DiagnosticSink set_diagnostic_sink(DiagnosticSink sink);

void warn(std::string_view text);  // "PREFIX: warning: TEXT"
void note(std::string_view text);  // "PREFIX: TEXT"
// A line the user asked for by other means (an environment variable's
// timing report): "PREFIX: TEXT", even when quiet.
void asked(std::string_view text);
// A line that the end of the process follows (a library that cannot be
// loaded): "sonde: TEXT", even when quiet.
void fatal_line(std::string_view text);

template <typename... Args>
  requires(sizeof...(Args) > 0)
void warn(fmt::format_string<Args...> f, Args&&... args) {
  if (!diagnostics_quiet()) warn(std::string_view(fmt::format(f, std::forward<Args>(args)...)));
}
template <typename... Args>
  requires(sizeof...(Args) > 0)
void note(fmt::format_string<Args...> f, Args&&... args) {
  if (!diagnostics_quiet()) note(std::string_view(fmt::format(f, std::forward<Args>(args)...)));
}

}  // namespace sonde
