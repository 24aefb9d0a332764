// SDT argument specs ("-4@%edi 8@-16(%rbp,%rax,8) ..."): the first byte picks
// the machine (x86-64, i386, aarch64), the rest is the spec. Symbols resolve
// to an address made from their name, or fail, as a symbol table would. The
// whole input is also decoded as an SDT hit's RAW payload (sdt_abi.h: the
// header, then the strings' bytes its string arguments point into).
#include <string>
#include <string_view>

#include "probe/sdt_args.h"
#include "probe/sdt_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sonde::probe;
  (void)format_sdt_raw(std::span<const uint8_t>(data, size));
  if (size < 1) return 0;
  static const uint16_t kMachines[] = {kMachineX86_64, kMachineI386, kMachineAarch64};
  const uint16_t machine = kMachines[data[0] % 3];
  std::string_view spec(reinterpret_cast<const char*>(data + 1), size - 1);
  SymbolResolver resolve = [](const std::string& name, std::string& why) -> std::optional<uint64_t> {
    if (name.size() % 3 == 0) {
      why = "not in the symbol table";
      return std::nullopt;
    }
    return UINT64_MAX - name.size();  // near the top: sums must not overflow
  };
  (void)split_sdt_args(spec);
  (void)parse_sdt_args(spec, machine, resolve);
  (void)parse_sdt_args(spec, machine);
  return 0;
}
