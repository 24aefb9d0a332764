// `sonde record -e '%PROVIDER:EVENT[@PATH]'`: the RecordExtension that
// resolves SDT specs to probe sites, attaches them through the BPF program
// (one uprobe_multi link per object file, or one uprobe perf event per site
// on kernels without uprobe_multi: SONDE_SDT_ATTACH, sdt_attach_route.h)
// and names each sample after its probe. See docs/sdt.md.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "probe/probe_cache.h"
#include "probe/sdt_abi.h"
#include "probe/sdt_attach_route.h"
#include "probe/sdt_spec.h"
#include "record/record_extension.h"
#include "util/fd.h"

namespace sonde::probe {

class SdtBpf;
class SdtEntry;

// Probe ids in the stream: far above any kernel event id.
inline constexpr uint64_t kSdtIdBase = 1ULL << 62;

class SdtExtension : public record::RecordExtension {
 public:
  // `specs`: the -e values that start with '%'. `cache_root`: the build-id
  // cache folder (ProbeCache::default_root()). The attach route comes from
  // SONDE_SDT_ATTACH (a bad value is a usage error, thrown here).
  SdtExtension(std::vector<std::string> specs, std::string cache_root);
  ~SdtExtension() override;

  // Sites of `sonde record -e probe:BIN:DEF` (dynamic_sites.h), added to
  // the file's own SDT sites before prepare(); `-e %GROUP:EVENT@PATH` picks them.
  void add_dynamic_sites(const std::string& real_path, const std::vector<SdtSite>& sites);

  void prepare(const record::RecordTarget& target, const perf_event_attr& base) override;
  bool adds_events() const override { return true; }  // its bpf-output events carry RAW
  std::vector<format::EventDesc> attrs() override;
  std::vector<int> ring_fds() override;
  bool rewrite_sample(std::span<uint8_t> record) override;
  void on_fork(pid_t pid, pid_t ppid) override;
  void on_exit(pid_t pid) override;
  void on_exec_mapping(pid_t pid, const std::string& path, const BuildId& id) override;
  void stop() override;

  // Introspection for tests and benchmarks.
  struct Site {
    std::string path;
    SdtSite site;
    uint32_t probe = 0;
  };
  const std::vector<Site>& sites() const { return sites_; }
  const std::vector<std::string>& probe_names() const { return probe_names_; }
  size_t link_count() const { return links_.size(); }
  // The route prepare() took (Multi or PerfEvent; Auto before prepare()).
  SdtAttachRoute route() const { return route_; }
  double attach_seconds() const { return attach_seconds_; }
  double detach_seconds() const { return detach_seconds_; }

 private:
  struct Candidate {
    std::string path;
    const SdtSite* site;
  };
  struct PickedSites;
  struct AttachPlan;

  // prepare()'s steps, in the order it takes them.
  // The scanned files of the target's objects, when a spec has no @PATH.
  std::vector<const SdtFile*> scan_target_files(const record::RecordTarget& target);
  // Resolves every spec to sites; a spec that matches nothing, or names a
  // probe several cached binaries define, is a usage error.
  PickedSites pick_sites(const record::RecordTarget& target, const std::vector<const SdtFile*>& target_files);
  void pick_pinned(const ProbeSpec& spec, PickedSites& picked);
  // Picks the sites of the names `in_target` lacks from the probe cache
  // index; returns how many it matched.
  size_t pick_from_index(const ProbeSpec& spec, const std::vector<IndexEntry>& index,
                         const std::set<std::string>& in_target, PickedSites& picked);
  // Throws a usage error naming the first site that cannot be recorded.
  void check_recordable(const PickedSites& picked) const;
  // Appends the picked sites to sites_ and lays them out per file.
  AttachPlan plan_attach(const PickedSites& picked);
  void warn_if_slow_teardown() const;
  // Runs on the linking thread: link_sites() for every file of the plan.
  std::vector<UniqueFd> link_plan(const AttachPlan& plan) const;
  void load_program(size_t site_count);
  // One bpf-output event per CPU, handed to the program, and the pid filter.
  void open_outputs(const record::RecordTarget& target);
  // Puts the target's processes in the filter and follows their forks.
  void follow_target(const record::RecordTarget& target);

  uint32_t probe_index(const std::string& full_name);
  // Appends the sites to sites_ (cookie = index) and returns their recipes.
  std::vector<sonde_sdt_site_spec> plan_sites(const SdtFile& file, const std::vector<const SdtSite*>& picked);
  // plan_sites() + storing the recipes in the program's table.
  void add_sites(const SdtFile& file, const std::vector<const SdtSite*>& picked);
  // Attaches sites first .. end - 1 (all of `path`) by the route: one
  // uprobe_multi link, or one link per site.
  std::vector<UniqueFd> link_sites(const std::string& path, size_t first, size_t end) const;
  void attach_file(const std::string& path, size_t first_site);
  std::vector<std::string> target_objects(const record::RecordTarget& target);

  std::vector<ProbeSpec> specs_;
  SdtAttachRoute route_ = SdtAttachRoute::Auto;
  int event_cpu_ = 0;  // the CPU the per-site uprobe events are opened on
  ProbeCache cache_;
  std::unique_ptr<SdtEntry> entry_;  // what the links run: a tail call into bpf_
  std::unique_ptr<SdtBpf> bpf_;
  perf_event_attr attr_{};
  std::vector<UniqueFd> outputs_;       // per CPU of target.cpus
  std::vector<uint64_t> output_ids_;    // kernel ids of the bpf-output events
  std::vector<UniqueFd> links_;         // uprobe_multi links, or one perf event link per site
  std::vector<Site> sites_;             // cookie = index
  std::vector<std::string> probe_names_;
  std::map<std::string, uint32_t> probe_by_name_;
  std::set<std::string> seen_paths_;    // objects already scanned (attached or without matches)
  std::map<std::string, SdtFile> files_;  // keeps scanned files alive
  // The scanned probes of `path` (a real path), read once per recording;
  // throws what the probe cache throws for an unreadable or non-ELF file.
  const SdtFile& file(const std::string& path);
  bool filter_ = false;
  bool stopped_ = false;
  double attach_seconds_ = 0, detach_seconds_ = 0;
  struct {
    double resolve = 0, load = 0, outputs = 0, forks = 0, sites = 0, links = 0;
  } timing_;  // parts of attach_seconds_ (SONDE_SDT_TIMING)
  size_t link_count_ = 0;
};

}  // namespace sonde::probe
