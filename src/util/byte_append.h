// Appends raw bytes to a byte vector: the one way sonde's record and file
// builders grow their buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sonde {

// Appends the n bytes at p to out. Out of line on purpose: inlined into a
// builder, gcc 12 at -O2/-O3 follows vector's growth path into a memset or
// memmove that it wrongly thinks overflows (-Wstringop-overflow, a known
// false positive), and -Werror turns it into a failed Release build.
void append_bytes(std::vector<uint8_t>& out, const void* p, size_t n);

// Appends a plain value's bytes (an on-disk header, an integer) to a file
// image kept in a string.
template <typename T>
void append_pod(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <typename T>
void append_pods(std::string& out, const std::vector<T>& v) {
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

}  // namespace sonde
