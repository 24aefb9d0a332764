#include "kernel/process_environment.h"

#include <cstdlib>
#include <string>

namespace sonde::kernel {

void set_debuginfod_defaults(int timeout_s) {
  const char* urls = std::getenv("DEBUGINFOD_URLS");
  if (!urls || !*urls) return;
  ::setenv("DEBUGINFOD_TIMEOUT", std::to_string(timeout_s).c_str(), 0);
  ::setenv("DEBUGINFOD_RETRY_LIMIT", "0", 0);
}

}  // namespace sonde::kernel
