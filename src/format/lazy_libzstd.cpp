// The libzstd functions sonde calls (PERF_RECORD_COMPRESSED payloads: read
// from `perf record -z` files, written by `sonde record -z`), loaded on first
// use (util/lazy_library.h says why).
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
ZSTD_CCtx* ZSTD_createCCtx(void) { return SONDE_LAZY_CALL(libzstd, ZSTD_createCCtx)(); }
size_t ZSTD_freeCCtx(ZSTD_CCtx* cctx) { return SONDE_LAZY_CALL(libzstd, ZSTD_freeCCtx)(cctx); }
size_t ZSTD_CCtx_setParameter(ZSTD_CCtx* cctx, ZSTD_cParameter param, int value) {
  return SONDE_LAZY_CALL(libzstd, ZSTD_CCtx_setParameter)(cctx, param, value);
}
size_t ZSTD_compressStream2(ZSTD_CCtx* cctx, ZSTD_outBuffer* output, ZSTD_inBuffer* input,
                            ZSTD_EndDirective end_op) {
  return SONDE_LAZY_CALL(libzstd, ZSTD_compressStream2)(cctx, output, input, end_op);
}
unsigned ZSTD_isError(size_t code) { return SONDE_LAZY_CALL(libzstd, ZSTD_isError)(code); }
const char* ZSTD_getErrorName(size_t code) { return SONDE_LAZY_CALL(libzstd, ZSTD_getErrorName)(code); }

}  // extern "C"
