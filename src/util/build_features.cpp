#include "util/build_features.h"

#include <fmt/format.h>

namespace sonde {

std::vector<BuildFeature> build_features() {
  // sonde's dependencies are fixed (scripts/install-deps.sh): elfutils for
  // DWARF and ELF, its own CFI unwinder, zstd, zlib and liblzma (the last
  // loaded when MiniDebugInfo needs it), libbpf, debuginfod over HTTP. No
  // scripting languages, no libbfd (no PE files), no libunwind.
  return {
      {"dwarf", true, "HAVE_DWARF_SUPPORT"},         {"glibc", true, "HAVE_GLIBC_SUPPORT"},
      {"syscall_table", true, "HAVE_SYSCALL_TABLE_SUPPORT"}, {"libbfd", false, "HAVE_LIBBFD_SUPPORT"},
      {"debuginfod", true, "HAVE_DEBUGINFOD_SUPPORT"}, {"libelf", true, "HAVE_LIBELF_SUPPORT"},
      {"libnuma", false, "HAVE_LIBNUMA_SUPPORT"},    {"libperl", false, "HAVE_LIBPERL_SUPPORT"},
      {"libpython", false, "HAVE_LIBPYTHON_SUPPORT"}, {"libslang", false, "HAVE_SLANG_SUPPORT"},
      {"libcrypto", false, "HAVE_LIBCRYPTO_SUPPORT"}, {"libunwind", false, "HAVE_LIBUNWIND_SUPPORT"},
      {"libdw-dwarf-unwind", true, "HAVE_DWARF_SUPPORT"}, {"zlib", true, "HAVE_ZLIB_SUPPORT"},
      {"lzma", true, "HAVE_LZMA_SUPPORT"},           {"bpf", true, "HAVE_LIBBPF_SUPPORT"},
      {"zstd", true, "HAVE_ZSTD_SUPPORT"},           {"libpfm4", false, "HAVE_LIBPFM"},
  };
}

std::string format_build_features(const std::vector<BuildFeature>& features) {
  std::string out;
  for (const auto& f : features) out += fmt::format("{:>22}: [ {:<3} ]  # {}\n", f.name, f.on ? "on" : "OFF", f.macro);
  return out;
}

}  // namespace sonde
