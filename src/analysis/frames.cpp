#include "analysis/frames.h"

#include "format/perf_abi.h"

namespace sonde::analysis {

using namespace sonde::format;

void sample_frames(const Sample& s, const AddressSpace& space, std::vector<Frame>& out, size_t max_stack) {
  out.clear();
  auto add = [&](uint64_t addr, bool kernel) {
    Frame f;
    f.addr = addr;
    f.kernel = kernel;
    f.map = space.find(s.pid, addr, kernel);
    if (f.map) f.file_offset = f.map->file_offset(addr);
    out.push_back(f);
  };
  const size_t n = s.callchain_size();
  if (n == 0) {
    add(s.ip, s.cpumode() == kMiscKernel || s.cpumode() == kMiscGuestKernel);
    return;
  }
  bool kernel = s.cpumode() == kMiscKernel;
  for (size_t i = 0; i < n; ++i) {
    uint64_t a = s.callchain_at(i);
    if (a >= kContextMax) {
      kernel = a == kContextKernel || a == kContextGuestKernel;
      continue;
    }
    add(a, kernel);
    if (max_stack && out.size() >= max_stack) break;
  }
  if (out.empty()) add(s.ip, s.cpumode() == kMiscKernel);
}

}  // namespace sonde::analysis
