// Kernel code bytes from /proc/kcore (or a copy, as `perf record --kcore`
// keeps one): an ELF core file whose PT_LOAD segments map the kernel's
// virtual addresses (text, modules) onto file offsets. /proc/kcore claims
// a size of 128 TiB and cannot be mapped whole, so the headers and the few
// bytes asked for are read with pread; the headers are untrusted bytes,
// parsed with every count checked against the bytes that hold them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "util/fd.h"

namespace sonde::annotate {

struct KcoreSegment {
  uint64_t vaddr = 0;
  uint64_t offset = 0;  // in the file
  uint64_t size = 0;    // file bytes (p_filesz)
};

// The PT_LOAD segments of an ELF64 little-endian file, from its first
// bytes (`head`: the header and the program headers). nullopt with
// *why set when `head` is not such a file or is too short for its
// program headers (then *need is the bytes needed, when known).
std::optional<std::vector<KcoreSegment>> parse_kcore_segments(std::span<const uint8_t> head, std::string* why,
                                                             uint64_t* need);

class KcoreReader {
 public:
  // nullptr and *why set when `path` cannot be read or is not an ELF core.
  static std::unique_ptr<KcoreReader> open(const std::string& path, std::string* why);
  // The `size` bytes at kernel address `addr`, when one segment holds them
  // all; nullopt otherwise (*why set).
  std::optional<std::vector<uint8_t>> read(uint64_t addr, uint64_t size, std::string* why) const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  UniqueFd fd_;
  std::vector<KcoreSegment> segments_;
};

}  // namespace sonde::annotate
