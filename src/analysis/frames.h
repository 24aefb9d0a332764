// A sample's call chain as frames: the context markers removed, each address
// paired with the mapping that holds it and its file offset there.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "format/sample.h"
#include "analysis/address_space.h"

namespace sonde::analysis {

struct Frame {
  uint64_t addr = 0;
  bool kernel = false;
  const Mapping* map = nullptr;  // nullptr: no mapping holds the address
  uint64_t file_offset = 0;      // valid when map is set
};

// Fills `out` (reused across calls: no allocation once warm) leaf first.
// With a callchain the markers decide user/kernel; without, the sample's ip
// and cpumode give the one frame. `max_stack` 0 means no limit.
void sample_frames(const format::Sample& s, const AddressSpace& space, std::vector<Frame>& out, size_t max_stack = 0);

}  // namespace sonde::analysis
