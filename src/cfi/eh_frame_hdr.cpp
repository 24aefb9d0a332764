#include "cfi/eh_frame_hdr.h"

#include <algorithm>
#include <type_traits>

#include "util/byte_reader.h"

namespace sonde::cfi {

namespace {

// DW_EH_PE_* (the LSB): the low nibble is the value's format, bits 4..6
// what it is relative to.
constexpr uint8_t kOmit = 0xff;
constexpr uint8_t kAbsPtr = 0x00, kUdata2 = 0x02, kUdata4 = 0x03, kUdata8 = 0x04;
constexpr uint8_t kSdata2 = 0x0a, kSdata4 = 0x0b, kSdata8 = 0x0c;
constexpr uint8_t kPcRel = 0x10, kDataRel = 0x30;

template <typename T>
bool read_as(ByteReader& r, uint64_t& out) {
  T v;
  if (!r.read(v)) return false;
  if constexpr (std::is_signed_v<T>)
    out = static_cast<uint64_t>(static_cast<int64_t>(v));  // sign-extended
  else
    out = v;
  return true;
}

// Reads one encoded value at r's position; `at` is that position's address
// (for pc-relative values), `data` the header's (for data-relative ones).
bool read_encoded(ByteReader& r, uint8_t enc, uint64_t at, uint64_t data, uint64_t& out) {
  bool ok = false;
  switch (enc & 0x0f) {
    case kAbsPtr:
    case kUdata8: ok = read_as<uint64_t>(r, out); break;
    case kUdata2: ok = read_as<uint16_t>(r, out); break;
    case kUdata4: ok = read_as<uint32_t>(r, out); break;
    case kSdata2: ok = read_as<int16_t>(r, out); break;
    case kSdata4: ok = read_as<int32_t>(r, out); break;
    case kSdata8: ok = read_as<int64_t>(r, out); break;
    default: return false;
  }
  if (!ok) return false;
  switch (enc & 0x70) {
    case 0: return true;
    case kPcRel: out += at; return true;
    case kDataRel: out += data; return true;
    default: return false;
  }
}

size_t encoded_size(uint8_t enc) {
  switch (enc & 0x0f) {
    case kUdata2:
    case kSdata2: return 2;
    case kUdata4:
    case kSdata4: return 4;
    case kAbsPtr:
    case kUdata8:
    case kSdata8: return 8;
    default: return 0;
  }
}

}  // namespace

std::optional<std::vector<uint64_t>> fde_starts(std::span<const uint8_t> hdr, uint64_t hdr_vaddr, std::string* why) {
  auto fail = [why](const char* reason) -> std::optional<std::vector<uint64_t>> {
    if (why) *why = reason;
    return std::nullopt;
  };
  ByteReader r(hdr);
  uint8_t version = 0, ptr_enc = 0, count_enc = 0, table_enc = 0;
  if (!r.read(version) || !r.read(ptr_enc) || !r.read(count_enc) || !r.read(table_enc))
    return fail(".eh_frame_hdr is truncated");
  if (version != 1) return fail("unknown .eh_frame_hdr version");
  uint64_t eh_frame = 0, count = 0;
  if (ptr_enc == kOmit || !read_encoded(r, ptr_enc, hdr_vaddr + r.offset(), hdr_vaddr, eh_frame))
    return fail(".eh_frame_hdr: unreadable .eh_frame pointer");
  if (count_enc == kOmit || table_enc == kOmit) return fail(".eh_frame_hdr has no search table");
  if (!read_encoded(r, count_enc, hdr_vaddr + r.offset(), hdr_vaddr, count))
    return fail(".eh_frame_hdr: unreadable FDE count");
  size_t entry = 2 * encoded_size(table_enc);
  if (entry == 0) return fail(".eh_frame_hdr: unsupported table encoding");
  if (count > r.remaining() / entry) return fail(".eh_frame_hdr: the FDE count exceeds the section");
  std::vector<uint64_t> starts;
  starts.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t loc = 0, fde = 0;
    if (!read_encoded(r, table_enc, hdr_vaddr + r.offset(), hdr_vaddr, loc) ||
        !read_encoded(r, table_enc, hdr_vaddr + r.offset(), hdr_vaddr, fde))
      return fail(".eh_frame_hdr: unsupported table encoding");
    starts.push_back(loc);
  }
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  return starts;
}

}  // namespace sonde::cfi
