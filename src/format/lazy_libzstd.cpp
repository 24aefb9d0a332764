// The libzstd functions sonde calls (PERF_RECORD_COMPRESSED payloads of
// `perf record -z` files), loaded on first use (util/lazy_library.h says why).
#include <zstd.h>

#include "util/lazy_library.h"

namespace {
constinit sonde::LazyLibrary libzstd("libzstd.so.1");
}  // namespace

extern "C" {

ZSTD_DCtx* ZSTD_createDCtx(void) { return SONDE_LAZY_CALL(libzstd, ZSTD_createDCtx)(); }
size_t ZSTD_freeDCtx(ZSTD_DCtx* dctx) { return SONDE_LAZY_CALL(libzstd, ZSTD_freeDCtx)(dctx); }
size_t ZSTD_decompressStream(ZSTD_DCtx* zds, ZSTD_outBuffer* output, ZSTD_inBuffer* input) {
  return SONDE_LAZY_CALL(libzstd, ZSTD_decompressStream)(zds, output, input);
}
unsigned ZSTD_isError(size_t code) { return SONDE_LAZY_CALL(libzstd, ZSTD_isError)(code); }
const char* ZSTD_getErrorName(size_t code) { return SONDE_LAZY_CALL(libzstd, ZSTD_getErrorName)(code); }

}  // extern "C"
