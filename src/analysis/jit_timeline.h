// JIT code placed in the address space at the time it was loaded. When a
// process announces a jitdump (an executable mmap of jit-PID.dump), the
// dump is read and its code loads and moves are replayed, in time order,
// as mappings of the dump file (each maps the code's addresses onto the
// file offsets of its bytes: symbol/jitdump_source.cpp names them). A
// sample first brings its process's timeline up to the sample's time, so
// an address reused by several functions resolves to the one that was
// there then.
//
// The replay needs the recording's timestamps on the dump's clock
// (CLOCK_MONOTONIC: `sonde record` asks for it, as `perf record -k mono`
// does). On another clock every load is placed at once, when the dump is
// announced (the last function at an address wins), and note() says so.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/address_space.h"
#include "jit/cfi_image.h"
#include "jit/jitdump.h"

namespace sonde::analysis {

class JitTimeline {
 public:
  // `copy_dirs`: where the recording keeps its JIT files (jit/jit_files.h).
  // `same_clock`: the samples' timestamps are CLOCK_MONOTONIC.
  JitTimeline(std::vector<std::string> copy_dirs, bool same_clock)
      : copy_dirs_(std::move(copy_dirs)), same_clock_(same_clock) {}

  // An mmap of `path` by `pid` was seen at `time`: reads it if it is a jitdump.
  void on_mmap(uint32_t pid, std::string_view path, AddressSpace& space);
  // Places `pid`'s code loaded up to `time` (cheap when there is none).
  void advance(uint32_t pid, uint64_t time, AddressSpace& space) {
    if (!dumps_.empty()) advance_slow(pid, time, space);
  }

  // The unwinding tables of the code `pid` loaded from dump file offset
  // `code_offset` (its mapping's pgoff); nullopt when it has none or an
  // empty .eh_frame (V8 writes a bare header for most of its code).
  std::optional<jit::JitUnwindInfo> unwinding(uint32_t pid, uint64_t code_offset) const;

  // One line for the user ("" if nothing to say): dumps that could not be
  // read or stopped early, a clock that does not match.
  std::string note() const;

 private:
  struct Dump {
    std::string bytes;
    jit::JitDump parsed;
    std::string_view path;       // interned by the address space
    std::vector<uint32_t> order;  // parsed.code indexes by time
    size_t next = 0;             // first not yet placed
    std::unordered_map<uint64_t, uint32_t> with_unwinding;  // code_offset -> parsed.code index
  };
  void advance_slow(uint32_t pid, uint64_t time, AddressSpace& space);
  void place(Dump& d, uint64_t time, uint32_t pid, AddressSpace& space);

  std::vector<std::string> copy_dirs_;
  bool same_clock_;
  std::unordered_map<uint32_t, Dump> dumps_;  // by pid
  std::vector<std::string> problems_;
};

}  // namespace sonde::analysis
