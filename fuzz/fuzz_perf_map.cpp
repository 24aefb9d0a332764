// /tmp/perf-PID.map files written by JITs: "START SIZE NAME" lines.
#include <string>

#include "elf/symbol_table.h"
#include "fuzz_input.h"
#include "symbol/kernel_symbols.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sonde::fuzz::InputFile in(data, size);
  std::string text, why;
  sonde::SymbolTable table;
  if (!sonde::load_perf_map(in.path(), text, table, &why)) return 0;
  for (const auto& s : table.symbols()) {
    (void)table.find(s.addr);
    (void)table.find(s.addr + s.size);
  }
  return 0;
}
