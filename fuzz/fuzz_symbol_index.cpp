// sonde's per-build-id symbol index as read back from the build-id cache (a
// file anyone with write access to the cache could have damaged). Input: the
// index; the wanted build-id and sources are taken from its own header, so
// the checks after that binding are reached.
#include <algorithm>
#include <cstring>

#include "symbol/symbol_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sonde::SymbolIndexKey key;
  if (size >= 40) {
    std::memcpy(&key.sources, data + 12, sizeof key.sources);
    key.build_id.size = std::min<uint8_t>(data[16], 20);
    std::memcpy(key.build_id.bytes.data(), data + 20, 20);
  }
  std::string why;
  auto index = sonde::SymbolIndex::open({data, size}, key, &why);
  if (!index) return 0;
  for (size_t i = 0; i < index->size(); ++i) {
    (void)index->find(index->addr(i));
    (void)index->find(index->addr(i) + index->size(i));
    (void)index->name(i).size();
  }
  return 0;
}
