#include "util/byte_append.h"

#include <cstring>

namespace sonde {

void append_bytes(std::vector<uint8_t>& out, const void* p, size_t n) {
  if (n == 0) return;
  size_t at = out.size();
  out.resize(at + n);
  std::memcpy(out.data() + at, p, n);
}

}  // namespace sonde
