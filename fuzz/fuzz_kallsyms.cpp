// /proc/kallsyms text (core and module symbols, any line), then every
// address it gave is looked up and named, and the table's index
// (sonde-kallsyms.idx) is written and read back: it must round-trip.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "fuzz_input.h"
#include "symbol/kallsyms_index.h"
#include "symbol/kernel_symbols.h"
#include "util/fd.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sonde::fuzz::InputFile in(data, size);
  sonde::KernelSymbols syms;
  std::vector<sonde::ModuleRange> modules;
  std::string why;
  if (!sonde::load_kallsyms(in.path(), syms, modules, &why)) return 0;
  for (size_t i = 0; i < syms.size(); ++i) {
    const uint64_t a = syms.addr(i);
    if (syms.find(a) == sonde::KernelSymbols::kNone) std::abort();  // a symbol's own address finds a symbol
    (void)syms.name(i);
    (void)sonde::find_module(modules, a);
  }
  if (syms.empty()) return 0;
  struct stat st {};
  if (::fstat(syms.names_fd(), &st) != 0) return 0;
  const sonde::KallsymsText text{static_cast<uint64_t>(st.st_size), static_cast<uint64_t>(st.st_ino)};
  const std::string index = sonde::encode_kallsyms_index(syms, modules, text);
  sonde::KernelSymbols back;
  std::vector<sonde::ModuleRange> back_modules;
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(index.data()), index.size());
  sonde::UniqueFd names(::dup(syms.names_fd()));
  if (!sonde::decode_kallsyms_index(bytes, text, std::move(names), back, back_modules, &why)) std::abort();
  if (back.size() != syms.size() || back_modules.size() != modules.size()) std::abort();
  return 0;
}
