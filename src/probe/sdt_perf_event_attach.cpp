#include "probe/sdt_perf_event_attach.h"

#include <bpf/bpf.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "kernel/perf_event.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/fields.h"
#include "util/parse_int.h"

namespace sonde::probe {

namespace {
constexpr const char* kPmuDir = "/sys/bus/event_source/devices/uprobe";
}

UprobePmu read_uprobe_pmu() {
  UprobePmu pmu;
  auto type = read_first_line(std::string(kPmuDir) + "/type");
  unsigned t = 0;
  if (!type || !parse_uint_into(*type, t))
    throw_runtime("sdt: this kernel has no uprobe PMU ({}/type), needed to attach probes without uprobe_multi",
                  kPmuDir);
  pmu.type = t;
  // "config:32-63" (PERF_UPROBE_REF_CTR_OFFSET_SHIFT): read rather than
  // assumed, and absent before 4.20.
  if (auto f = read_first_line(std::string(kPmuDir) + "/format/ref_ctr_offset")) {
    std::string_view bits = *f;
    unsigned lo = 0, hi = 0;
    size_t dash = bits.find('-');
    if (bits.starts_with("config:") && dash != std::string_view::npos &&
        parse_uint_into(bits.substr(7, dash - 7), lo) && parse_uint_into(bits.substr(dash + 1), hi) && lo < 64 &&
        hi == 63) {
      pmu.ref_ctr_shift = lo;
      pmu.has_ref_ctr = true;
    }
  }
  return pmu;
}

std::vector<UniqueFd> attach_uprobe_perf_events(int prog_fd, const std::string& path, int cpu,
                                                std::span<const uint64_t> offsets,
                                                std::span<const uint64_t> ref_ctr_offsets,
                                                std::span<const uint64_t> cookies, bool retprobe) {
  std::vector<UniqueFd> links;
  if (offsets.empty()) return links;
  const UprobePmu pmu = read_uprobe_pmu();
  links.reserve(offsets.size());
  for (size_t i = 0; i < offsets.size(); ++i) {
    const uint64_t ref = ref_ctr_offsets[i];
    if (ref && !pmu.has_ref_ctr)
      throw_runtime("sdt: {}:0x{:x} has a semaphore and this kernel's uprobe PMU cannot raise it (Linux 4.20+)",
                    path, offsets[i]);
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = pmu.type;
    // format/retprobe is config:0 (PERF_PROBE_CONFIG_IS_RETPROBE).
    attr.config = (ref << pmu.ref_ctr_shift) | (retprobe ? 1 : 0);
    attr.config1 = reinterpret_cast<uint64_t>(path.c_str());
    attr.config2 = offsets[i];
    // Counting, not sampling: the program returns 0, so perf itself never
    // records anything for this event; inherit stays 0 (see the header).
    UniqueFd event(kernel::perf_event_open_sized(attr, -1, cpu, -1, kPerfFlagFdCloexec));
    if (!event)
      throw_runtime("sdt: cannot open a uprobe event for {}:0x{:x}: {}", path, offsets[i], errno_text(errno));
    LIBBPF_OPTS(bpf_link_create_opts, opts, .perf_event = {.bpf_cookie = cookies[i]});
    int link = bpf_link_create(prog_fd, event.get(), BPF_PERF_EVENT, &opts);
    if (link < 0)
      throw_runtime("sdt: cannot attach the BPF program to {}:0x{:x}: {}", path, offsets[i], errno_text(errno));
    links.emplace_back(link);  // the link holds the event; `event` closes here
  }
  return links;
}

}  // namespace sonde::probe
