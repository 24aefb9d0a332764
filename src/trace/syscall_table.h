// System call numbers and names of the architecture sonde is built for,
// generated from the kernel headers' <asm/unistd_64.h> (CMakeLists.txt):
// the names perf trace shows (its table comes from the same kernel source).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sonde::trace {

// "" for a number the headers do not name.
std::string_view syscall_name(uint64_t nr);
std::optional<uint32_t> syscall_number(std::string_view name);

// The names nearest to `name` by edit distance (at most `n`), for an
// "unknown syscall" message.
std::vector<std::string> nearest_syscall_names(std::string_view name, size_t n);

// -e SYSCALLS: a comma list of names or globs ("open*"); a leading '!'
// negates the whole list, as perf trace's -e does. Throws a usage error
// naming the nearest names for a name that matches nothing.
std::vector<uint32_t> select_syscalls(std::string_view list);

}  // namespace sonde::trace
