#include "format/record_compressor.h"

#include <zstd.h>

#include <cstring>

#include "format/perf_abi.h"
#include "util/error.h"

namespace sonde::format {

// Incompressible input, the zstd frame header and the flush's empty block
// still fit one record.
static_assert(ZSTD_COMPRESSBOUND(RecordCompressor::kSliceBytes) + 64 <= RecordCompressor::kMaxPayload);

RecordCompressor::RecordCompressor(int level) : level_(level), scratch_(kMaxPayload) {
  cctx_ = ZSTD_createCCtx();
  if (!cctx_) throw_runtime("cannot compress the recording: out of memory");
  size_t r = ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, level);
  if (ZSTD_isError(r)) {
    ZSTD_freeCCtx(cctx_);
    throw_runtime("cannot compress at zstd level {}: {}", level, ZSTD_getErrorName(r));
  }
}

RecordCompressor::~RecordCompressor() { ZSTD_freeCCtx(cctx_); }

void RecordCompressor::compress(std::span<const uint8_t> records, std::vector<uint8_t>& out) {
  for (size_t done = 0; done < records.size();) {
    size_t slice = std::min(kSliceBytes, records.size() - done);
    ZSTD_inBuffer in{records.data() + done, slice, 0};
    size_t remaining = 0;
    do {
      ZSTD_outBuffer ob{scratch_.data(), scratch_.size(), 0};
      remaining = ZSTD_compressStream2(cctx_, &ob, &in, ZSTD_e_flush);
      if (ZSTD_isError(remaining)) throw_runtime("cannot compress the recording: {}", ZSTD_getErrorName(remaining));
      if (ob.pos == 0) {
        // A whole free record and nothing came out: zstd is stuck, not busy.
        if (remaining != 0 || in.pos < in.size) throw_runtime("cannot compress the recording: zstd made no progress");
        break;
      }
      RecordHeader h{kCompressed, 0, static_cast<uint16_t>(sizeof(RecordHeader) + ob.pos)};
      const auto* hb = reinterpret_cast<const uint8_t*>(&h);
      out.insert(out.end(), hb, hb + sizeof h);
      out.insert(out.end(), scratch_.data(), scratch_.data() + ob.pos);
      compressed_ += h.size;
    } while (remaining != 0 || in.pos < in.size);
    plain_ += slice;
    done += slice;
  }
}

}  // namespace sonde::format
