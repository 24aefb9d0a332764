// The drop policy's sample surgery (format/sample_edit.h) on any bytes: the
// first 8 are the sample_type, the next 2 how much stack to keep, the rest
// the sample. A cut never grows the record, and leaves a header that says
// its new size.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "format/perf_abi.h"
#include "format/sample_edit.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 10) return 0;
  uint64_t sample_type = 0;
  uint16_t keep = 0;
  std::memcpy(&sample_type, data, 8);
  std::memcpy(&keep, data + 8, 2);
  std::vector<uint8_t> sample(data + 10, data + size);
  uint8_t id[64];
  if (sonde::format::sample_id_of(sample, sample_type, id) > sizeof id) std::abort();
  const size_t n = sonde::format::cut_user_stack(sample, sample_type, 0xff0fff, keep);
  if (n == 0) return 0;
  if (n > sample.size()) std::abort();
  sonde::format::RecordHeader h;
  std::memcpy(&h, sample.data(), sizeof h);
  if (h.size != n) std::abort();
  return 0;
}
