// What every module that loads an embedded BPF object shares (probe: SDT,
// offcpu: the scheduler switch): opening the bytes, loading them with
// libbpf's own reason in the one-line error, and fds by name.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

struct bpf_object;

namespace sonde::bpf {

// Opens `bytes` as the BPF object `name` and starts capturing libbpf's log
// (libbpf reports through one global callback) so that it never writes to
// stderr. `what` prefixes errors ("sdt", "off-cpu"). Throws a runtime error.
bpf_object* open_embedded(std::span<const uint8_t> bytes, const char* name, std::string_view what);

// Loads `obj`. On failure closes it, sets it to null and throws a runtime
// error that ends in libbpf's last log line.
void load_or_throw(bpf_object*& obj, std::string_view what);

// The fd of a program or map of a loaded object; -1 when it has none.
int prog_fd(bpf_object* obj, const char* name);
int map_fd(bpf_object* obj, const char* name);

// libbpf's last non-debug log line since open_embedded, "" if none.
std::string last_log_line();

}  // namespace sonde::bpf
