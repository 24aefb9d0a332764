// The capstone functions sonde calls, loaded on first use (util/lazy_library.h
// says why): only `sonde annotate` and the HTML page's annotate view
// disassemble, so no other command loads libcapstone.
#include <capstone/capstone.h>

#include "util/lazy_library.h"

namespace {
constinit sonde::LazyLibrary libcapstone("libcapstone.so.4");
}  // namespace

extern "C" {

cs_err cs_open(cs_arch arch, cs_mode mode, csh* handle) {
  return SONDE_LAZY_CALL(libcapstone, cs_open)(arch, mode, handle);
}
cs_err cs_close(csh* handle) { return SONDE_LAZY_CALL(libcapstone, cs_close)(handle); }
cs_err cs_option(csh handle, cs_opt_type type, size_t value) {
  return SONDE_LAZY_CALL(libcapstone, cs_option)(handle, type, value);
}
const char* cs_strerror(cs_err code) { return SONDE_LAZY_CALL(libcapstone, cs_strerror)(code); }
cs_insn* cs_malloc(csh handle) { return SONDE_LAZY_CALL(libcapstone, cs_malloc)(handle); }
void cs_free(cs_insn* insn, size_t count) { SONDE_LAZY_CALL(libcapstone, cs_free)(insn, count); }
bool cs_disasm_iter(csh handle, const uint8_t** code, size_t* size, uint64_t* address, cs_insn* insn) {
  return SONDE_LAZY_CALL(libcapstone, cs_disasm_iter)(handle, code, size, address, insn);
}
bool cs_insn_group(csh handle, const cs_insn* insn, unsigned int group_id) {
  return SONDE_LAZY_CALL(libcapstone, cs_insn_group)(handle, insn, group_id);
}

}  // extern "C"
