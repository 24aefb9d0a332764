#include "util/lazy_library.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace sonde {

namespace {

[[noreturn]] void give_up(const char* message) {
  std::fprintf(stderr, "sonde: %s\n", message);
  // _Exit, not exit: other threads may be running, and static destructors
  // must not race with them.
  std::_Exit(1);
}

}  // namespace

void* LazyLibrary::symbol(const char* name) noexcept {
  std::call_once(once_, [this] {
    // RTLD_LOCAL: only sonde's forwarding functions see its symbols.
    handle_ = ::dlopen(soname_, RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
      char message[512];
      const char* why = ::dlerror();
      std::snprintf(message, sizeof message, "cannot load %s: %s (is its package installed?)", soname_,
                    why ? why : "unknown error");
      give_up(message);
    }
  });
  void* fn = ::dlsym(handle_, name);
  if (!fn) {
    char message[512];
    std::snprintf(message, sizeof message, "%s has no function %s (not the version sonde was built with?)",
                  soname_, name);
    give_up(message);
  }
  return fn;
}

}  // namespace sonde
