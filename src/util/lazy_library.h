// Shared libraries loaded on first use instead of at start-up.
//
// Every sonde command paid for loading libbpf, libdw (with liblzma and
// libbz2), libzstd and liblzma whether it used them or not: ~0.45 ms of a
// 2.3 ms start-up (`perf stat -r 300`), which is most of what `sonde sdt
// list` costs. The functions sonde calls from these libraries are defined
// in sonde itself (the lazy_*.cpp files) with the prototypes of the
// libraries' own headers, so a mismatch does not compile; each forwards to
// the library's function, which is looked up the first time it is called.
//
// For those, a library that cannot be loaded is a broken installation
// (sonde's package depends on it), not something a caller can handle:
// symbol() ends the process with one line on stderr and exit code 1.
// Throwing is not an option, since some headers declare their functions
// noexcept. Optional libraries (libdebuginfod) use find() instead.
#pragma once

#include <mutex>
#include <string>

namespace sonde {

class LazyLibrary {
 public:
  constexpr explicit LazyLibrary(const char* soname) : soname_(soname) {}
  LazyLibrary(const LazyLibrary&) = delete;
  LazyLibrary& operator=(const LazyLibrary&) = delete;

  // The address of `name` in the library, loading it on the first call.
  // Thread-safe. Does not return when the library or symbol is missing.
  void* symbol(const char* name) noexcept;
  // The same for an optional library: nullptr, with *why set to one line,
  // when the library or the symbol is missing.
  void* find(const char* name, std::string* why = nullptr) noexcept;

 private:
  // Every member is constant-initializable, so `constinit LazyLibrary x("...")`
  // compiles with every standard library (clang 14 with libstdc++ 12 has no
  // constexpr std::string), and no global constructor runs at start-up.
  const char* soname_;
  std::once_flag once_;
  void* handle_ = nullptr;
  char load_error_[256] = {};  // why dlopen failed (truncated); set once, with handle_
};

}  // namespace sonde

// The function `name` of `library`, resolved once (a thread-safe static per
// call site). Used in the body of the forwarding definition:
//   int dwarf_tag(Dwarf_Die* die) { return SONDE_LAZY_CALL(libdw, dwarf_tag)(die); }
#define SONDE_LAZY_CALL(library, name)                                                  \
  ([]() noexcept {                                                                      \
    static const auto fn = reinterpret_cast<decltype(&::name)>((library).symbol(#name)); \
    return fn;                                                                          \
  }())
