// A system call's arguments and return value as perf trace (6.1) prints
// them: `name: value` pairs (zero values left out), flags and enumerations
// decoded for the common calls, errno names for failures.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "trace/syscall_signatures.h"

namespace sonde::trace {

// The comm of a thread id, "" if unknown (for pid arguments and returns).
using CommLookup = std::function<std::string_view(uint32_t tid)>;

// The path behind a descriptor of the calling process (fd_paths.h), nullptr
// if unknown: perf's `fd: 3</etc/passwd>`.
using FdLookup = std::function<const std::string*(int64_t fd)>;

// Path strings read at entry (syscall_strings.h), by argument index; an
// argument without one is printed as perf prints it without its probe.
struct ArgStrings {
  std::array<std::string, 6> text;
  uint8_t present = 0;  // bit i: text[i] was read
};

// "dfd: CWD, filename: 0x..., flags: RDONLY|CLOEXEC" (without the parentheses);
// with strings, `filename: "/etc/passwd"`; with `fd_path`, descriptors with
// their files, `fd: 3</dev/null>`.
std::string format_args(const SyscallSignature& sig, const uint64_t (&args)[6], const CommLookup& comm,
                        const ArgStrings* strings = nullptr, const FdLookup& fd_path = {});

// Whether argument `i` of `sig` is a file descriptor (perf's SCA_FD rule: an
// int-sized argument whose name ends in "fd", dfd included).
bool is_fd_argument(const SyscallSignature& sig, size_t i);

// "0", "-1 ENOENT (No such file or directory)", "0x7f...", "1234 (cat)".
std::string format_return(std::string_view syscall, int64_t ret, const CommLookup& comm);

// "ENOENT" and "No such file or directory" for errno `e`.
std::string errno_name(int e);
std::string errno_text(int e);

}  // namespace sonde::trace
