// The liblzma functions sonde calls (MiniDebugInfo: .gnu_debugdata is an xz
// stream), loaded on first use (util/lazy_library.h says why).
#include <lzma.h>

#include "util/lazy_library.h"

namespace {
constinit sonde::LazyLibrary liblzma("liblzma.so.5");
}  // namespace

extern "C" {

lzma_ret lzma_stream_decoder(lzma_stream* strm, uint64_t memlimit, uint32_t flags) noexcept {
  return SONDE_LAZY_CALL(liblzma, lzma_stream_decoder)(strm, memlimit, flags);
}
lzma_ret lzma_code(lzma_stream* strm, lzma_action action) noexcept {
  return SONDE_LAZY_CALL(liblzma, lzma_code)(strm, action);
}
void lzma_end(lzma_stream* strm) noexcept { SONDE_LAZY_CALL(liblzma, lzma_end)(strm); }

}  // extern "C"
