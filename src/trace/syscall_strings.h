// Path strings of system calls, read at entry by BPF (syscall_strings.bpf.c)
// so that `openat(filename: "/etc/passwd")` shows the path as strace does:
// a RecordExtension that loads the program, follows the traced processes
// and writes each string as a SAMPLE of its own event into the stream,
// beside the raw_syscalls samples (docs/trace.md).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bpf/bpf_ring.h"
#include "record/record_extension.h"
#include "trace/syscall_signatures.h"
#include "trace/syscall_strings_abi.h"
#include "util/fd.h"

struct bpf_object;

namespace sonde::trace {

// The event of the strings: a software bpf-output event, its id far above
// the kernel's (and apart from off-CPU's, 3 << 61).
inline constexpr uint64_t kStringEventId = (3ULL << 61) + 16;
inline constexpr std::string_view kStringEventName = "sonde:syscall-string";

// A string sample's RAW payload: u32 syscall number, u32 argument index,
// then the string (NUL-terminated).
struct StringPayload {
  uint32_t nr = 0, arg = 0;
  std::string_view text;
};
bool parse_string_payload(std::span<const uint8_t> raw, StringPayload& out);

// Per syscall number, the bits of its path-string arguments (perf's
// SCA_FILENAME rule: `const char *` named *name or *path*).
std::vector<uint8_t> string_argument_masks(SyscallSignatures& signatures);

// What became of the strings, filled when the extension stops: the
// recorder may own (and destroy) the extension, the caller keeps this.
struct StringsOutcome {
  uint64_t lost = 0;         // strings the ring buffer had no room for
  std::string unavailable;   // why BPF could not be used ("" when it was)
};

// One line each for strings lost or not read at all (none when all went well).
void warn_about_strings(const StringsOutcome& outcome);

class SyscallStringsExtension : public record::RecordExtension {
 public:
  SyscallStringsExtension(std::vector<uint8_t> masks, StringsOutcome& outcome);
  ~SyscallStringsExtension() override;

  void prepare(const record::RecordTarget& target, const perf_event_attr& base) override;
  std::vector<format::EventDesc> attrs() override;
  int wake_fd() const override;
  size_t produce(const record::RecordWrite& write, bool final) override;
  void drained_until(uint64_t ns) override { horizon_ = ns; }
  void stop() override;

 private:
  void load(const record::RecordTarget& target);
  uint64_t lost() const;

  std::vector<uint8_t> masks_;
  perf_event_attr base_{};
  bpf_object* obj_ = nullptr;
  bpf::BpfRing ring_;
  int lost_fd_ = -1;
  std::vector<UniqueFd> links_;
  StringsOutcome& outcome_;
  size_t written_ = 0;
  // Strings taken from the ring, not yet written: those stamped at or after
  // the kernel records' horizon wait for a later round (drained_until).
  std::vector<sonde_string_event> held_;
  uint64_t horizon_ = 0;
  std::vector<uint8_t> record_;
};

}  // namespace sonde::trace
