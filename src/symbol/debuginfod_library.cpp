#include "symbol/debuginfod_library.h"

#include <dlfcn.h>

namespace sonde {

const DebuginfodLibrary* debuginfod_library(const char** why) {
  static DebuginfodLibrary lib{};
  static const char* error = nullptr;
  static bool tried = false;
  if (!tried) {
    tried = true;
    void* h = ::dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      error = "libdebuginfod.so.1 is not installed";
    } else {
      lib.begin = reinterpret_cast<decltype(lib.begin)>(::dlsym(h, "debuginfod_begin"));
      lib.end = reinterpret_cast<decltype(lib.end)>(::dlsym(h, "debuginfod_end"));
      lib.find_debuginfo = reinterpret_cast<decltype(lib.find_debuginfo)>(::dlsym(h, "debuginfod_find_debuginfo"));
      lib.find_executable = reinterpret_cast<decltype(lib.find_executable)>(::dlsym(h, "debuginfod_find_executable"));
      if (!lib.begin || !lib.end || !lib.find_debuginfo || !lib.find_executable) error = "libdebuginfod.so.1 lacks its API";
    }
  }
  if (error) {
    if (why) *why = error;
    return nullptr;
  }
  return &lib;
}

}  // namespace sonde
