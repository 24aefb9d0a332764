// libdebuginfod, loaded with dlopen only when DEBUGINFOD_URLS asks for it.
// Linking it directly would load libcurl and its ~25 dependencies (TLS,
// Kerberos, LDAP, ...) into every sonde process, which made `sonde --version`
// and `sonde record` start-up several times slower; elfutils' own libdwfl
// loads it the same way.
#pragma once

#include <elfutils/debuginfod.h>

namespace sonde {

struct DebuginfodLibrary {
  debuginfod_client* (*begin)();
  void (*end)(debuginfod_client*);
  int (*find_debuginfo)(debuginfod_client*, const unsigned char*, int, char**);
  int (*find_executable)(debuginfod_client*, const unsigned char*, int, char**);
};

// The loaded library, or nullptr (with *why set) when it cannot be loaded.
const DebuginfodLibrary* debuginfod_library(const char** why);

}  // namespace sonde
