// Synthetic jitdumps for tests: the header and records as V8 writes them
// (jit/jitdump.h's structs), appended one by one.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "jit/jitdump.h"
#include "util/byte_append.h"

namespace sonde::test {

class JitdumpWriter {
 public:
  explicit JitdumpWriter(uint32_t pid, uint32_t version = 1) {
    jit::JitHeader h{};
    h.magic = jit::kJitMagic;
    h.version = version;
    h.total_size = sizeof h;
    h.elf_mach = 62;  // EM_X86_64
    h.pid = pid;
    put(h);
  }

  // A function `name` of `size` bytes (0xcc each) at `addr`, loaded at `time`.
  JitdumpWriter& load(uint64_t time, uint64_t addr, uint64_t size, const std::string& name, uint64_t index = 0) {
    jit::JitCodeLoadRecord r{};
    r.p = {jit::kCodeLoad, static_cast<uint32_t>(sizeof r + name.size() + 1 + size), time};
    r.pid = r.tid = pid();
    r.vma = r.code_addr = addr;
    r.code_size = size;
    r.code_index = index;
    put(r);
    put_bytes(name.c_str(), name.size() + 1);
    bytes_.insert(bytes_.end(), size, 0xcc);
    return *this;
  }

  JitdumpWriter& move(uint64_t time, uint64_t from, uint64_t to, uint64_t size, uint64_t index = 0) {
    jit::JitCodeMoveRecord r{};
    r.p = {jit::kCodeMove, sizeof r, time};
    r.pid = r.tid = pid();
    r.vma = to;
    r.old_code_addr = from;
    r.new_code_addr = to;
    r.code_size = size;
    r.code_index = index;
    put(r);
    return *this;
  }

  struct Line {
    uint64_t addr;
    int32_t line, column;
    std::string file;  // "\xff" repeats the previous entry's
  };
  JitdumpWriter& debug_info(uint64_t time, uint64_t addr, const std::vector<Line>& lines) {
    jit::JitDebugInfoRecord r{};
    size_t size = sizeof r;
    for (const auto& l : lines) size += sizeof(jit::JitDebugEntry) + l.file.size() + 1;
    r.p = {jit::kCodeDebugInfo, static_cast<uint32_t>(size), time};
    r.code_addr = addr;
    r.nr_entry = lines.size();
    put(r);
    for (const auto& l : lines) {
      jit::JitDebugEntry e{l.addr, l.line, l.column};
      put(e);
      put_bytes(l.file.c_str(), l.file.size() + 1);
    }
    return *this;
  }

  JitdumpWriter& close(uint64_t time) {
    jit::JitRecordPrefix p{jit::kCodeClose, sizeof p, time};
    put(p);
    return *this;
  }

  // Any bytes (for malformed records).
  JitdumpWriter& raw(const void* p, size_t n) {
    put_bytes(p, n);
    return *this;
  }

  const std::vector<uint8_t>& bytes() const { return bytes_; }
  std::string str() const { return std::string(bytes_.begin(), bytes_.end()); }

 private:
  uint32_t pid() const {
    jit::JitHeader h;
    std::memcpy(&h, bytes_.data(), sizeof h);
    return h.pid;
  }
  template <typename T>
  void put(const T& v) {
    put_bytes(&v, sizeof v);
  }
  void put_bytes(const void* p, size_t n) {
    append_bytes(bytes_, p, n);
  }
  std::vector<uint8_t> bytes_;
};

}  // namespace sonde::test
