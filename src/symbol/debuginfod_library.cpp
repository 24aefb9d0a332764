#include "symbol/debuginfod_library.h"

#include "util/lazy_library.h"

namespace sonde {

const DebuginfodLibrary* debuginfod_library(const char** why) {
  // Optional: without it, debuginfod lookups are skipped with this reason.
  static constinit LazyLibrary so("libdebuginfod.so.1");
  static const DebuginfodLibrary* lib = []() -> const DebuginfodLibrary* {
    static DebuginfodLibrary l{};
    l.begin = reinterpret_cast<decltype(l.begin)>(so.find("debuginfod_begin"));
    l.end = reinterpret_cast<decltype(l.end)>(so.find("debuginfod_end"));
    l.find_debuginfo = reinterpret_cast<decltype(l.find_debuginfo)>(so.find("debuginfod_find_debuginfo"));
    l.find_executable = reinterpret_cast<decltype(l.find_executable)>(so.find("debuginfod_find_executable"));
    return l.begin && l.end && l.find_debuginfo && l.find_executable ? &l : nullptr;
  }();
  if (!lib && why)
    *why = so.find("debuginfod_begin") ? "libdebuginfod.so.1 lacks its API" : "libdebuginfod.so.1 is not installed";
  return lib;
}

}  // namespace sonde
