// cgroup v2 ids (what bpf_get_current_cgroup_id returns: the inode number
// of the cgroup's directory in cgroupfs) and the paths perf shows for them,
// relative to the cgroup2 mount ("/" for the root).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace sonde::kernel {

// Where cgroup2 is mounted, from a mountinfo text (/proc/self/mountinfo's
// layout); "" when it is not. Pure: unit-tested.
std::string cgroup2_mount(std::string_view mountinfo);

// Every cgroup under `mount` by id. A directory that cannot be read is
// skipped (its cgroups then print by id).
std::unordered_map<uint64_t, std::string> cgroup_paths(const std::string& mount);

// The cgroups of this machine's cgroup2 mount (empty when none is mounted).
std::unordered_map<uint64_t, std::string> cgroup_paths();

}  // namespace sonde::kernel
