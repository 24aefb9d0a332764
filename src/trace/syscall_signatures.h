// Each system call's argument names and types, from the kernel's own
// description of it: tracefs' events/syscalls/sys_enter_NAME/format (the
// same source perf trace uses). Read on first use of each call.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace sonde::trace {

struct SyscallArg {
  std::string name;   // "filename"
  std::string type;   // "const char *"
  bool pointer = false;
};

struct SyscallSignature {
  std::string name;              // "openat"
  std::vector<SyscallArg> args;  // empty if the kernel does not describe it
  bool described = false;        // its format file was found
};

class SyscallSignatures {
 public:
  // `events_dir` is tracefs' events folder; "" when tracefs is not there
  // (replaying elsewhere): then arguments are shown as arg0..arg5.
  explicit SyscallSignatures(std::string events_dir) : events_dir_(std::move(events_dir)) {}

  // The tracefs events folder, mounting tracefs if needed; "" if that fails.
  static std::string find_events_dir();

  const SyscallSignature& get(uint32_t nr);

 private:
  SyscallSignature load(uint32_t nr) const;

  std::string events_dir_;
  std::unordered_map<uint32_t, SyscallSignature> cache_;
};

}  // namespace sonde::trace
