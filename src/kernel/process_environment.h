// Environment settings read by libraries sonde loads, set by the CLI before
// any thread starts (setenv must not race a getenv): the library never
// changes the environment.
#pragma once

namespace sonde::kernel {

// libdebuginfod reads its settings from the environment on every query and
// has no API for them. sonde's defaults, each only when the user set none:
// DEBUGINFOD_TIMEOUT (libdebuginfod's default stall timeout is 90 s; a
// profiler's report must not hang that long on a dead server) and
// DEBUGINFOD_RETRY_LIMIT 0 (the first failure turns debuginfod off for the
// run anyway; the default two retries triple the wait). Nothing is set when
// DEBUGINFOD_URLS is unset or empty: debuginfod is then not used.
inline constexpr int kDebuginfodTimeoutSeconds = 5;
void set_debuginfod_defaults(int timeout_s = kDebuginfodTimeoutSeconds);

}  // namespace sonde::kernel
