// Bounds-checked reading of untrusted bytes. Every read checks the remaining
// length first; nothing ever trusts a length field to stay inside the buffer.
// Values are copied out with memcpy, so unaligned input is fine.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>

namespace sonde {

class ByteReader {
 public:
  ByteReader() = default;
  ByteReader(const uint8_t* data, size_t size) : p_(data), end_(data + size), begin_(data) {}
  explicit ByteReader(std::span<const uint8_t> s) : ByteReader(s.data(), s.size()) {}

  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  size_t offset() const { return static_cast<size_t>(p_ - begin_); }
  bool empty() const { return p_ == end_; }
  const uint8_t* pos() const { return p_; }

  template <typename T>
  bool read(T& out) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (remaining() < sizeof(T)) return false;
    std::memcpy(&out, p_, sizeof(T));
    p_ += sizeof(T);
    return true;
  }

  bool skip(size_t n) {
    if (remaining() < n) return false;
    p_ += n;
    return true;
  }

  // A view of the next n bytes, consumed.
  bool bytes(size_t n, std::span<const uint8_t>& out) {
    if (remaining() < n) return false;
    out = {p_, n};
    p_ += n;
    return true;
  }

  // A NUL-terminated string within the next `max` bytes (or the rest).
  bool cstring(std::string_view& out, size_t max = SIZE_MAX) {
    size_t lim = remaining() < max ? remaining() : max;
    const void* nul = std::memchr(p_, 0, lim);
    if (!nul) return false;
    size_t len = static_cast<size_t>(static_cast<const uint8_t*>(nul) - p_);
    out = {reinterpret_cast<const char*>(p_), len};
    p_ += len + 1;
    return true;
  }

 private:
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  const uint8_t* begin_ = nullptr;
};

// Unaligned load of a trivially copyable value; the caller has checked bounds.
template <typename T>
inline T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace sonde
