#include "probe/sdt_extension.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <optional>
#include <thread>

#include "probe/sdt_abi.h"
#include "probe/sdt_bpf.h"
#include "probe/sdt_perf_event_attach.h"
#include "format/sample_edit.h"
#include "format/session.h"
#include "kernel/perf_event.h"
#include "util/diagnostics.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/proc_maps.h"

namespace sonde::probe {
namespace {

using Clock = std::chrono::steady_clock;

// Releasing one per-site uprobe event costs ~0.1 s, serialized in the
// kernel whatever the number of closing threads (measured, docs/sdt.md):
// above this many sites the recording's end is slow enough to warn about.
constexpr size_t kSlowTeardownSites = 50;
constexpr double kPerfEventTeardownSeconds = 0.1;
// Threads closing links at stop(): uprobe_multi links release in parallel
// (one grace-period wait each); per-site events gain little from more.
constexpr size_t kCloseThreads = 8;

bool is_file(const std::string& p) { return ::access(p.c_str(), R_OK) == 0; }

uint8_t type_byte(const SdtArg& a) {
  uint8_t t = a.size & SONDE_SDT_TYPE_SIZE_MASK;
  if (a.is_signed) t |= SONDE_SDT_TYPE_SIGNED;
  if (a.is_float) t |= SONDE_SDT_TYPE_FLOAT;
  if (a.is_string) t |= SONDE_SDT_TYPE_STRING;
  return t;
}

sonde_sdt_site_spec to_spec(const SdtSite& s, uint32_t probe) {
  sonde_sdt_site_spec spec{};
  spec.probe = probe;
  spec.nargs = static_cast<uint32_t>(s.parsed.args.size());
  for (size_t i = 0; i < s.parsed.args.size() && i < SONDE_SDT_MAX_ARGS; ++i) {
    const SdtArg& a = s.parsed.args[i];
    sonde_sdt_arg_spec& o = spec.args[i];
    o.type = type_byte(a);
    o.base = a.base;
    o.index = a.index;
    o.scale = a.scale;
    o.shift = a.shift;
    o.disp = a.disp;
    o.nderefs = static_cast<uint8_t>(std::min<size_t>(a.derefs.size(), SONDE_SDT_MAX_DEREFS));
    std::copy_n(a.derefs.begin(), o.nderefs, o.derefs);
    switch (a.kind) {
      case ArgKind::Imm: o.kind = SONDE_SDT_ARG_IMM; break;
      case ArgKind::Reg: o.kind = SONDE_SDT_ARG_REG; break;
      case ArgKind::Mem: o.kind = SONDE_SDT_ARG_MEM; break;
      case ArgKind::RipMem:
        // The program only knows the runtime probe ip: store the link-time
        // distance from the probe to the global.
        o.kind = SONDE_SDT_ARG_RIP;
        o.disp = a.disp - static_cast<int64_t>(s.pc);
        break;
    }
  }
  return spec;
}

std::string candidates_text(const std::map<std::string, std::set<std::string>>& paths_by_name) {
  std::string out;
  for (const auto& [name, paths] : paths_by_name)
    for (const auto& p : paths) { out += out.empty() ? "" : ", "; out += name + "@" + p; }
  return out;
}

// The output events: software bpf-output, one per CPU, with the
// recorder's sample layout plus RAW (the payload) and IDENTIFIER (so the
// sample can be renamed in place).
perf_event_attr output_attr(const perf_event_attr& base) {
  perf_event_attr attr = base;
  attr.size = sizeof(perf_event_attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_BPF_OUTPUT;
  attr.sample_period = 1;
  attr.freq = 0;
  attr.sample_type = (base.sample_type | PERF_SAMPLE_RAW | PERF_SAMPLE_IDENTIFIER) &
                     ~static_cast<uint64_t>(PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_AUX);
  attr.read_format = 0;
  attr.disabled = 0;
  attr.inherit = 0;
  attr.enable_on_exec = 0;
  attr.mmap = attr.mmap2 = attr.mmap_data = attr.comm = attr.comm_exec = attr.task = 0;
  attr.context_switch = attr.namespaces = attr.ksymbol = attr.bpf_event = attr.cgroup = 0;
  attr.exclude_user = attr.exclude_kernel = attr.exclude_hv = attr.exclude_idle = 0;
  attr.precise_ip = 0;
  attr.config1 = attr.config2 = 0;
  attr.branch_sample_type = 0;
  if (attr.wakeup_events == 0 && !attr.watermark) attr.wakeup_events = 1;
  return attr;
}

}  // namespace

SdtExtension::SdtExtension(std::vector<std::string> specs, std::string cache_root)
    : route_(sdt_attach_route_from_env()), cache_(std::move(cache_root)) {
  for (const auto& s : specs) specs_.push_back(parse_probe_spec(s));
}

SdtExtension::~SdtExtension() { stop(); }

uint32_t SdtExtension::probe_index(const std::string& full_name) {
  auto [it, inserted] = probe_by_name_.emplace(full_name, static_cast<uint32_t>(probe_names_.size()));
  if (inserted) probe_names_.push_back(full_name);
  return it->second;
}

const SdtFile& SdtExtension::file(const std::string& path) {
  auto it = files_.find(path);
  if (it == files_.end()) it = files_.emplace(path, cache_.get(path)).first;
  return it->second;
}

void SdtExtension::add_dynamic_sites(const std::string& real_path, const std::vector<SdtSite>& sites) {
  file(real_path);  // the file's own SDT sites first
  auto& f = files_.at(real_path);
  f.sites.insert(f.sites.end(), sites.begin(), sites.end());
}

std::vector<std::string> SdtExtension::target_objects(const record::RecordTarget& target) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto push = [&](const std::string& p) {
    auto rp = real_path(p);
    if (rp && seen.insert(*rp).second) out.push_back(*rp);
  };
  if (!target.command_path.empty()) {
    push(target.command_path);
    // The executable's DT_NEEDED closure, breadth first.
    for (size_t i = 0; i < out.size() && out.size() < 512; ++i) {
      const SdtFile* f = nullptr;
      try {
        f = &file(out[i]);
      } catch (const Error&) {
        continue;  // a script or unreadable library: nothing to probe there
      }
      for (const auto& n : f->needed)
        if (auto p = find_needed_library(n, *f)) push(*p);
    }
  }
  for (pid_t pid : target.pids) {
    if (pid == target.workload_pid) continue;  // stopped before exec: its maps are sonde's
    auto maps = read_proc_maps(pid);
    if (!maps) continue;
    for_each_maps_line(*maps, [&](const MapsLine& m) {
      if (!m.executable() || !m.is_path() || m.deleted()) return;
      // Open through the target's root so containers resolve their own files.
      push(path_in_process(pid, m.path));
    });
  }
  return out;
}

// The sites picked for recording per file, in order, without duplicates
// across specs.
struct SdtExtension::PickedSites {
  std::map<std::string, std::vector<const SdtSite*>> by_path;
  std::set<const SdtSite*> taken;
  void take(const SdtFile& f, const SdtSite& s) {
    if (taken.insert(&s).second) by_path[f.path].push_back(&s);
  }
};

// The picked sites laid out for the program: sites_ holds them from
// files.front().second on, and `specs` are their recipes in the same order.
struct SdtExtension::AttachPlan {
  std::vector<std::pair<std::string, size_t>> files;  // (path, first site), then an end marker
  std::vector<sonde_sdt_site_spec> specs;
};

void SdtExtension::prepare(const record::RecordTarget& target, const perf_event_attr& base) {
  if (specs_.empty()) return;
  auto t_begin = Clock::now();
  try {
    PickedSites picked = pick_sites(target, scan_target_files(target));
    check_recordable(picked);
    attr_ = output_attr(base);

    // Kernels before 6.6 have no uprobe_multi links: there, one uprobe perf
    // event per site runs the same program (sdt_perf_event_attach.h).
    route_ = resolve_sdt_attach_route(route_);
    event_cpu_ = target.cpus.empty() ? 0 : target.cpus.front();
    auto t0 = Clock::now();
    // The links first, from another thread: creating them waits for an RCU
    // grace period in the kernel (the first uprobe registration after an
    // idle spell, in either route), which then overlaps loading the program
    // and filling its maps. They run the entry program, which does nothing
    // until connect() below.
    entry_ = std::make_unique<SdtEntry>(route_ == SdtAttachRoute::Multi);
    AttachPlan plan = plan_attach(picked);
    warn_if_slow_teardown();
    auto linking = std::async(std::launch::async, [this, &plan] { return link_plan(plan); });
    load_program(plan.specs.size());
    auto t_load = Clock::now();
    open_outputs(target);
    auto t_outputs = Clock::now();
    follow_target(target);

    auto t_forks = Clock::now();
    bpf_->set_sites(0, plan.specs);
    bpf_->connect(*entry_);
    auto t_sites = Clock::now();
    timing_.sites = std::chrono::duration<double>(t_sites - t_forks).count();
    for (auto& l : linking.get()) links_.push_back(std::move(l));
    for (const auto& [path, sites] : picked.by_path) seen_paths_.insert(path);
    auto t_end = Clock::now();
    // From the start of prepare(): spec resolution and ELF/cache reads too.
    attach_seconds_ = std::chrono::duration<double>(t_end - t_begin).count();
    timing_.resolve = std::chrono::duration<double>(t0 - t_begin).count();
    timing_.load = std::chrono::duration<double>(t_load - t0).count();
    timing_.outputs = std::chrono::duration<double>(t_outputs - t_load).count();
    timing_.forks = std::chrono::duration<double>(t_forks - t_outputs).count();
    // What is left of link creation once everything else is done.
    timing_.links = std::chrono::duration<double>(t_end - t_sites).count();
  } catch (...) {
    stop();
    throw;
  }
}

std::vector<const SdtFile*> SdtExtension::scan_target_files(const record::RecordTarget& target) {
  // The target's objects (the command's DT_NEEDED closure or the -p
  // maps, each scanned or read from the cache) only matter to specs
  // without @PATH: skip them when every spec is pinned (~2-8 ms saved).
  bool any_unpinned = false;
  for (const auto& spec : specs_) any_unpinned |= spec.path.empty();
  auto objects = any_unpinned ? target_objects(target) : std::vector<std::string>{};
  std::vector<const SdtFile*> files;
  for (const auto& p : objects) {
    try {
      files.push_back(&file(p));
    } catch (const Error&) {
      continue;
    }
    seen_paths_.insert(p);
  }
  return files;
}

SdtExtension::PickedSites SdtExtension::pick_sites(const record::RecordTarget& target,
                                                   const std::vector<const SdtFile*>& target_files) {
  PickedSites picked;
  std::optional<std::vector<IndexEntry>> index;  // read at the first spec without @PATH
  for (const auto& spec : specs_) {
    if (!spec.path.empty()) {
      pick_pinned(spec, picked);
      continue;
    }
    size_t matched = 0;
    std::set<std::string> in_target;
    for (const SdtFile* f : target_files)
      for (const auto& s : f->sites)
        if (spec.matches(s.provider, s.name)) {
          picked.take(*f, s);
          in_target.insert(s.full_name());
          ++matched;
        }
    if (!index) index = cache_.index();
    matched += pick_from_index(spec, *index, in_target, picked);
    if (!matched)
      throw_usage("sdt: no probe matches '{}' in the {} or the probe cache (add its binary with `sonde sdt add "
                  "PATH` or pin it with @PATH)",
                  spec.text, target.command_path.empty() ? "target processes" : "command and its libraries");
  }
  return picked;
}

void SdtExtension::pick_pinned(const ProbeSpec& spec, PickedSites& picked) {
  auto rp = real_path(spec.path);
  if (!rp) throw_usage("sdt: cannot open {}: {}", spec.path, errno_text(errno));
  const SdtFile& f = file(*rp);
  size_t matched = 0;
  for (const auto& s : f.sites)
    if (spec.matches(s.provider, s.name)) picked.take(f, s), ++matched;
  if (!matched) throw_usage("sdt: no probe matches '{}' in {}", spec.text, *rp);
}

size_t SdtExtension::pick_from_index(const ProbeSpec& spec, const std::vector<IndexEntry>& index,
                                     const std::set<std::string>& in_target, PickedSites& picked) {
  // Names no target object defines: the probe cache index decides, and
  // must name exactly one binary per probe name.
  std::map<std::string, std::set<std::string>> paths_by_name;
  for (const auto& e : index) {
    std::string full = "%" + e.provider + ":" + e.name;
    if (!spec.matches(e.provider, e.name) || in_target.count(full)) continue;
    if (!is_file(e.path)) continue;  // the cached binary is gone
    paths_by_name[full].insert(e.path);
  }
  std::map<std::string, std::set<std::string>> ambiguous;
  for (const auto& [name, paths] : paths_by_name)
    if (paths.size() > 1) ambiguous[name] = paths;
  if (!ambiguous.empty())
    throw_usage("sdt: '{}' is ambiguous: defined by several binaries and none is mapped by the target; "
                "pin one with @PATH. Candidates: {}",
                spec.text, candidates_text(ambiguous));
  size_t matched = 0;
  for (const auto& [name, paths] : paths_by_name) {
    const std::string& p = *paths.begin();
    const SdtFile* f = nullptr;
    try {
      f = &file(p);
    } catch (const Error&) {
      continue;
    }
    for (const auto& s : f->sites)
      if (s.full_name() == name) picked.take(*f, s), ++matched;
  }
  return matched;
}

void SdtExtension::check_recordable(const PickedSites& picked) const {
  // Every picked site must be recordable; say which probe is not.
  for (const auto& [path, sites] : picked.by_path) {
    const SdtFile& f = files_.at(path);
    for (const SdtSite* s : sites) {
      if (f.machine != kMachineX86_64)
        throw_usage("sdt: {} in {}: recording probes of ELF machine {} is not supported on this host",
                    s->full_name(), path, f.machine);
      if (!s->parsed.ok())
        throw_usage("sdt: {} in {} (0x{:x}): {}", s->full_name(), path, s->pc, s->parsed.error);
    }
  }
}

SdtExtension::AttachPlan SdtExtension::plan_attach(const PickedSites& picked) {
  AttachPlan plan;
  for (const auto& [path, picked_sites] : picked.by_path) {
    plan.files.emplace_back(path, sites_.size());
    auto sites = picked_sites;  // entries first, returns last: one link each
    std::stable_partition(sites.begin(), sites.end(), [](const SdtSite* s) { return !s->retprobe; });
    auto s = plan_sites(files_.at(path), sites);
    plan.specs.insert(plan.specs.end(), s.begin(), s.end());
  }
  plan.files.emplace_back(std::string(), sites_.size());  // end marker
  return plan;
}

void SdtExtension::warn_if_slow_teardown() const {
  if (route_ == SdtAttachRoute::Multi || sites_.size() <= kSlowTeardownSites) return;
  warn("sdt: {} probe sites as per-site uprobe events ({}): removing them takes about {:.0f} s when the "
       "recording ends",
       sites_.size(),
               uprobe_multi_supported() ? "SONDE_SDT_ATTACH=perf-event" : "no uprobe_multi links before Linux 6.6",
               static_cast<double>(sites_.size()) * kPerfEventTeardownSeconds);
}

std::vector<UniqueFd> SdtExtension::link_plan(const AttachPlan& plan) const {
  std::vector<UniqueFd> out;
  for (size_t i = 0; i + 1 < plan.files.size(); ++i)
    for (auto& l : link_sites(plan.files[i].first, plan.files[i].second, plan.files[i + 1].second))
      out.push_back(std::move(l));
  return out;
}

void SdtExtension::load_program(size_t site_count) {
  // Room for the sites attached now and for libraries dlopen'ed later
  // (at least as many again, at least 2048): an array, preallocated.
  bpf_ = std::make_unique<SdtBpf>(static_cast<uint32_t>(site_count + std::max<size_t>(site_count, 2048)),
                                  route_ == SdtAttachRoute::Multi);
}

void SdtExtension::open_outputs(const record::RecordTarget& target) {
  std::vector<int> cpus = target.cpus;
  if (cpus.empty())
    for (long c = 0, n = sysconf(_SC_NPROCESSORS_ONLN); c < n; ++c) cpus.push_back(static_cast<int>(c));
  for (int cpu : cpus) {
    int fd = kernel::perf_event_open_sized(attr_, -1, cpu, -1, kPerfFlagFdCloexec);
    if (fd < 0) throw_runtime("sdt: cannot open the bpf-output event on CPU {}: {}", cpu, errno_text(errno));
    outputs_.emplace_back(fd);
    uint64_t id = 0;
    if (ioctl(fd, kPerfEventIocId, &id) != 0) throw_runtime("sdt: PERF_EVENT_IOC_ID: {}", errno_text(errno));
    output_ids_.push_back(id);
    bpf_->set_output(cpu, fd);
  }
  filter_ = !target.system_wide && (!target.pids.empty() || !target.tids.empty() || target.workload_pid > 0);
  bpf_->set_filter(filter_);
}

void SdtExtension::follow_target(const record::RecordTarget& target) {
  if (filter_) {
    // Without the kernel-side follower, children are still added from
    // their FORK records (on_fork), only later: say so.
    std::string why = bpf_->follow_forks();
    if (!why.empty())
      warn("sdt: {}; children of recorded processes are traced from their FORK record on", why);
  }
  for (pid_t p : target.pids) bpf_->add_tgid(p);
  for (pid_t p : target.tids) bpf_->add_tgid(p);  // a -t thread of a single-threaded process
  if (target.workload_pid > 0) bpf_->add_tgid(target.workload_pid);
}

std::vector<sonde_sdt_site_spec> SdtExtension::plan_sites(const SdtFile& file,
                                                          const std::vector<const SdtSite*>& picked) {
  std::vector<sonde_sdt_site_spec> specs;
  specs.reserve(picked.size());
  for (const SdtSite* s : picked) {
    uint32_t probe = probe_index(s->full_name());
    specs.push_back(to_spec(*s, probe));
    sites_.push_back({file.path, *s, probe});
  }
  return specs;
}

void SdtExtension::add_sites(const SdtFile& file, const std::vector<const SdtSite*>& picked) {
  size_t first = sites_.size();
  auto specs = plan_sites(file, picked);
  try {
    bpf_->set_sites(static_cast<uint32_t>(first), specs);  // throws when the table is full
  } catch (...) {
    sites_.resize(first);
    throw;
  }
}

std::vector<UniqueFd> SdtExtension::link_sites(const std::string& path, size_t first, size_t end) const {
  std::vector<UniqueFd> out;
  // One link per run of entry sites and per run of return sites (a link
  // is one or the other); plan_attach() puts a file's returns last.
  for (size_t run = first; run < end;) {
    bool ret = sites_[run].site.retprobe;
    std::vector<uint64_t> offsets, refs, cookies;
    for (; run < end && sites_[run].site.retprobe == ret; ++run) {
      offsets.push_back(sites_[run].site.pc_offset);
      refs.push_back(sites_[run].site.sem_offset);
      cookies.push_back(run);
    }
    if (route_ == SdtAttachRoute::PerfEvent) {
      for (auto& l : attach_uprobe_perf_events(entry_->prog_fd(), path, event_cpu_, offsets, refs, cookies, ret))
        out.push_back(std::move(l));
    } else {
      out.push_back(attach_uprobe_multi(entry_->prog_fd(), path, offsets, refs, cookies, ret));
    }
  }
  return out;
}

void SdtExtension::attach_file(const std::string& path, size_t first) {
  if (first >= sites_.size()) return;
  for (auto& l : link_sites(path, first, sites_.size())) links_.push_back(std::move(l));
}

std::vector<format::EventDesc> SdtExtension::attrs() {
  std::vector<format::EventDesc> out;
  if (!bpf_) return out;
  for (size_t i = 0; i < probe_names_.size(); ++i) out.push_back({attr_, probe_names_[i], {kSdtIdBase + i}});
  // The carrier events themselves: records other than samples (LOST, ...)
  // carry their kernel ids.
  out.push_back({attr_, "sdt:output", output_ids_});
  return out;
}

std::vector<int> SdtExtension::ring_fds() {
  std::vector<int> out;
  for (const auto& fd : outputs_) out.push_back(fd.get());
  return out;
}

bool SdtExtension::rewrite_sample(std::span<uint8_t> record) {
  // The sample's layout is the format library's (the same decoder `sonde
  // script` uses); only IDENTIFIER / ID are rewritten, in place.
  if (record.size() < sizeof(format::RecordHeader)) return false;
  format::Sample s;
  if (!format::decode_sample_body(attr_, record.subspan(sizeof(format::RecordHeader)), s) ||
      s.raw.size() < sizeof(sonde_sdt_raw))
    return false;
  sonde_sdt_raw payload;
  std::memcpy(&payload, s.raw.data(), sizeof payload);
  if (payload.magic != SONDE_SDT_MAGIC || payload.probe >= probe_names_.size()) return false;
  const uint64_t id = kSdtIdBase + payload.probe;
  for (uint64_t field : {PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_ID})
    format::set_sample_field(record, attr_.sample_type, field, id);
  // A bpf-output event counts nothing: the kernel writes period 0, and
  // reports weighted by period (perf's and sonde's) showed every probe at
  // 0%. One hit is one event.
  format::set_sample_field(record, attr_.sample_type, PERF_SAMPLE_PERIOD, 1);
  return true;
}

void SdtExtension::on_fork(pid_t pid, pid_t /*ppid*/) {
  if (bpf_ && filter_) bpf_->add_tgid(pid);
}

void SdtExtension::on_exit(pid_t pid) {
  if (bpf_ && filter_) bpf_->remove_tgid(pid);
}

void SdtExtension::on_exec_mapping(pid_t pid, const std::string& path, const BuildId& /*id*/) {
  if (!bpf_ || stopped_ || path.empty() || path[0] != '/') return;
  auto rp = real_path(path_in_process(pid, path));
  if (!rp || seen_paths_.count(*rp)) return;
  // With only @PATH specs, nothing but those files can add sites: do not
  // scan every library the workload maps.
  bool pinned_here = false, any_unpinned = false;
  for (const auto& spec : specs_) {
    if (spec.path.empty()) any_unpinned = true;
    else if (auto sp = real_path(spec.path); sp && *sp == *rp) pinned_here = true;
  }
  if (!any_unpinned && !pinned_here) return;
  seen_paths_.insert(*rp);
  try {
    const SdtFile& f = file(*rp);
    std::vector<const SdtSite*> picked;
    for (const auto& s : f.sites) {
      // Only names already in the stream header can be recorded.
      if (!probe_by_name_.count(s.full_name())) continue;
      bool want = false;
      for (const auto& spec : specs_) {
        if (!spec.matches(s.provider, s.name)) continue;
        if (!spec.path.empty()) {
          auto sp = real_path(spec.path);
          if (!sp || *sp != *rp) continue;
        }
        want = true;
      }
      if (want && f.machine == kMachineX86_64 && s.parsed.ok()) picked.push_back(&s);
    }
    if (picked.empty()) return;
    size_t first = sites_.size();
    add_sites(f, picked);
    attach_file(*rp, first);
  } catch (const Error& e) {
    warn(std::string_view(e.what()));
  }
}

void SdtExtension::stop() {
  if (stopped_) return;
  stopped_ = true;
  auto t0 = Clock::now();
  link_count_ = links_.size();
  // Each link close waits for the kernel's uprobe unregistration (a
  // uprobe_multi link ~20-35 ms, a per-site uprobe event ~100 ms); links
  // close in parallel from a few threads.
  if (links_.size() > 1) {
    std::vector<std::thread> threads;
    const size_t n = std::min(links_.size(), kCloseThreads);
    for (size_t t = 0; t < n; ++t)
      threads.emplace_back([this, t, n] {
        for (size_t i = t; i < links_.size(); i += n) links_[i].reset();
      });
    for (auto& t : threads) t.join();
  }
  links_.clear();
  outputs_.clear();
  bpf_.reset();
  entry_.reset();
  detach_seconds_ = std::chrono::duration<double>(Clock::now() - t0).count();
  // For benchmarks (bench/sdt.sh): the extension's own setup and teardown,
  // without the recorder around it.
  const char* want = std::getenv("SONDE_SDT_TIMING");
  if (want && *want && *want != '0' && attach_seconds_ > 0)
    asked(fmt::format("sdt timing: {} sites, {} links: attach {:.2f} ms (resolve {:.2f}, bpf load {:.2f}, "
                      "outputs {:.2f}, fork follower {:.2f}, site table {:.2f}, {} {:.2f}); detach {:.2f} ms",
                 sites_.size(), link_count_, attach_seconds_ * 1e3, timing_.resolve * 1e3, timing_.load * 1e3, timing_.outputs * 1e3,
                 timing_.forks * 1e3, timing_.sites * 1e3,
                 route_ == SdtAttachRoute::PerfEvent ? "uprobe perf events" : "uprobe_multi links", timing_.links * 1e3,
                 detach_seconds_ * 1e3));
}

}  // namespace sonde::probe
