#include "util/build_features.h"

#include <algorithm>
#include <cctype>

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

const BuildFeature* find_checkable_feature(std::string_view name) {
  // perf 6.10+'s names beyond perf 6.1's --build-options list: sonde embeds
  // its BPF programs (skeletons), unwinds with libdw, disassembles with
  // capstone and parses tracepoint formats itself (libtraceevent's part);
  // it has no POSIX AIO writer, no AUX area tracing, no CoreSight decoder.
  static const std::vector<BuildFeature> features = [] {
    std::vector<BuildFeature> all = build_features();
    all.insert(all.end(), {{"bpf_skeletons", true, "HAVE_BPF_SKEL"},
                           {"dwarf_getlocations", true, "HAVE_LIBDW_SUPPORT"},
                           {"dwarf-unwind", true, "HAVE_DWARF_UNWIND_SUPPORT"},
                           {"libcapstone", true, "HAVE_LIBCAPSTONE_SUPPORT"},
                           {"libtraceevent", true, "HAVE_LIBTRACEEVENT"},
                           {"aio", false, "HAVE_AIO_SUPPORT"},
                           {"auxtrace", false, "HAVE_AUXTRACE_SUPPORT"},
                           {"libopencsd", false, "HAVE_CSTRACE_SUPPORT"},
                           {"numa_num_possible_cpus", false, "HAVE_LIBNUMA_SUPPORT"}});
    return all;
  }();
  auto same = [](std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
  };
  for (const BuildFeature& f : features)
    if (same(name, f.name) || same(name, f.macro)) return &f;
  return nullptr;
}

std::string format_build_features(const std::vector<BuildFeature>& features) {
  std::string out;
  for (const auto& f : features) out += fmt::format("{:>22}: [ {:<3} ]  # {}\n", f.name, f.on ? "on" : "OFF", f.macro);
  return out;
}

}  // namespace sonde
