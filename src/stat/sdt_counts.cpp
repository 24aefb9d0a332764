#include "stat/sdt_counts.h"

#include <cstring>

#include "format/perf_abi.h"
#include "probe/probe_cache.h"
#include "probe/sdt_extension.h"
#include "record/record_extension.h"
#include "record/ring_buffer.h"

namespace sonde::stat {

SdtCounts::SdtCounts(std::vector<std::string> specs) : specs_(std::move(specs)) {}
SdtCounts::~SdtCounts() { detach(); }

std::vector<std::string> SdtCounts::attach(pid_t workload, const std::string& command_path,
                                           const std::vector<int>& pids, const std::vector<int>& cpus) {
  ext_ = std::make_unique<probe::SdtExtension>(specs_, probe::ProbeCache::default_root());
  record::RecordTarget target;
  target.workload_pid = workload;
  target.command_path = command_path;
  if (workload > 0) target.pids = {workload};
  for (int p : pids) target.pids.push_back(p);
  target.system_wide = !cpus.empty();
  target.cpus = cpus;
  perf_event_attr base{};
  base.size = sizeof base;
  base.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
  base.sample_id_all = 1;
  ext_->prepare(target, base);
  for (int fd : ext_->ring_fds()) rings_.push_back(std::make_unique<record::RingBuffer>(fd, 64));
  hits_.assign(ext_->probe_names().size(), 0);
  return ext_->probe_names();
}

void SdtCounts::drain() {
  if (!ext_) return;
  std::vector<uint8_t> copy;
  for (auto& ring : rings_) {
    ring->drain([&](std::span<const uint8_t> rec) {
      format::RecordHeader h;
      std::memcpy(&h, rec.data(), sizeof h);
      if (h.type == format::kLost && rec.size() >= sizeof(format::Lost)) {
        format::Lost l;
        std::memcpy(&l, rec.data(), sizeof l);
        lost_ += l.lost;
        return;
      }
      if (h.type != format::kSample) return;
      copy.assign(rec.begin(), rec.end());
      // rewrite_sample puts the probe's id (kSdtIdBase + index) in the
      // IDENTIFIER field, the sample's first u64.
      if (!ext_->rewrite_sample(copy) || copy.size() < 16) return;
      uint64_t id;
      std::memcpy(&id, copy.data() + sizeof h, sizeof id);
      uint64_t probe = id - probe::kSdtIdBase;
      if (probe < hits_.size()) ++hits_[probe];
    });
  }
}

void SdtCounts::detach() {
  if (!ext_) return;
  drain();
  ext_->stop();
  rings_.clear();
  ext_.reset();
}

void expand_sdt_events(std::vector<CounterEvent>& events, const std::vector<std::string>& probe_names) {
  std::vector<CounterEvent> out;
  bool placed = false;
  for (auto& e : events) {
    if (e.sdt_spec.empty()) {
      out.push_back(std::move(e));
      continue;
    }
    if (placed) continue;  // every spec's probes go where the first spec was
    placed = true;
    for (const auto& name : probe_names) {
      CounterEvent p;
      p.name = name;
      p.sdt_spec = name;
      p.attr.type = PERF_TYPE_SOFTWARE;
      p.attr.config = PERF_COUNT_SW_BPF_OUTPUT;
      out.push_back(std::move(p));
    }
  }
  events = std::move(out);
}

}  // namespace sonde::stat
