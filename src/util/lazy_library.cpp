#include "util/lazy_library.h"
#include "util/diagnostics.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace sonde {

void* LazyLibrary::find(const char* name, std::string* why) noexcept {
  std::call_once(once_, [this] {
    // RTLD_LOCAL: only sonde's forwarding functions see its symbols.
    handle_ = ::dlopen(soname_, RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
      const char* e = ::dlerror();
      std::snprintf(load_error_, sizeof load_error_, "cannot load %s: %s", soname_, e ? e : "unknown error");
    }
  });
  if (!handle_) {
    if (why) *why = load_error_;
    return nullptr;
  }
  void* fn = ::dlsym(handle_, name);
  if (!fn && why) *why = std::string(soname_) + " has no function " + name;
  return fn;
}

void* LazyLibrary::symbol(const char* name) noexcept {
  std::string why;
  void* fn = find(name, &why);
  if (!fn) {
    fatal_line(why + (handle_ ? " (not the version sonde was built with?)" : " (is its package installed?)"));
    // _Exit, not exit: other threads may be running, and static destructors
    // must not race with them.
    std::_Exit(1);
  }
  return fn;
}

}  // namespace sonde
