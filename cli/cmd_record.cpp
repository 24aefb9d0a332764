// sonde record: CLI11 options -> record::RecordOptions -> record::record().
// Exit codes: the workload's exit status on success; 2 for malformed input
// (bad -e/-F/-c/-C/-m/-p syntax, unknown event); 1 when the request cannot be
// carried out (no such pid, event not supported, unwritable -o, ...). Errors
// found before recording starts never create the output file.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>

#include "cache/buildid_cache.h"
#include "commands.h"
#include "event_filters.h"
#include "process_args.h"
#include "number_options.h"
#include "cfi/cfi_extension.h"
#include "offcpu/offcpu_extension.h"
#include "probe/dynamic_sites.h"
#include "probe/sdt_extension.h"
#include "record/buildid_cache_keeper.h"
#include "record/cpu_list.h"
#include "record/jit_file_keeper.h"
#include "jit/jit_files.h"
#include "record/recorder.h"
#include "util/error.h"
#include "kernel/process_limits.h"
#include "util/diagnostics.h"
#include "util/fs.h"
#include "util/parse_int.h"

namespace sonde::cli {

namespace {

struct RecordArgs {
  std::vector<std::string> events;
  std::string freq, period, pages, call_graph, pids, tids, cpus, buildid_mode = "auto";
  std::string buildid_dir;
  bool no_buildid_cache = false;
  bool callchain = false, no_inherit = false, system_wide = false, quiet = false;
  bool compress = false;
  bool per_thread_counts = false, data_addresses = false, sample_time = false, all_user = false, all_kernel = false;
  bool user_callchain = false, verbose = false, no_buildid = false;
  bool off_cpu = false;
  bool per_thread = false, no_bpf_event = false, buildid_all = false;
  std::string synth = "all";
  // --filter after -e: (event, filter) in command-line order (record_filters).
  std::vector<std::pair<std::string, std::string>> filters;
  std::vector<std::string> filter_texts;
  std::string off_cpu_thresh;
  std::string switch_output, switch_max_files;
  std::string compression_level;
  std::string user_buffer;
  std::string threads;
  // Given on the command line, even as "" (an empty value is an error, not
  // the default).
  bool freq_given = false, period_given = false, pages_given = false, level_given = false;
  bool threads_given = false;
  bool switch_given = false, max_files_given = false, buildid_mode_given = false, thresh_given = false;
  std::string output = "sonde.data";
  std::vector<std::string> command;
};

// --user-buffer-size: bytes, with an optional K, M or G (binary, as -m's
// perf spelling and --switch-output's).
size_t parse_buffer_size(const std::string& text) {
  auto n = parse_byte_size(text, 1, uint64_t{64} << 30);
  if (!n) throw_usage("invalid --user-buffer-size '{}': expected a size such as 16M (K, M or G; at most 64G)", text);
  return static_cast<size_t>(*n);
}

// The losses by kind, when the user-space buffer had to shed load
// (record/drain_reader.h): "" otherwise.
std::string drop_details(const record::RecordSummary& s) {
  if (s.dropped == 0 && s.stacks_cut == 0) return "";
  return fmt::format("; lost by kind: {} by the kernel, {} dropped from the full user-space buffer; "
                     "{} dwarf samples had their user stack cut ({} bytes)",
                     s.lost - std::min(s.lost, s.dropped), s.dropped, s.stacks_cut, s.stack_bytes_cut);
}

// --synth=no|all|task|mmap|cgroup[,...] (perf's): whether the processes that
// exist before the recording get COMM/MMAP2 records (sonde writes both
// together; cgroup records are not written).
bool parse_synth(const std::string& text) {
  bool tasks = false;
  size_t pos = 0;
  for (;;) {
    size_t comma = text.find(',', pos);
    std::string word = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (word == "all" || word == "task" || word == "mmap") tasks = true;
    else if (word != "no" && word != "cgroup")
      throw_usage("invalid --synth '{}' (no, all, task, mmap, cgroup, comma-separated)", text);
    if (comma == std::string::npos) return tasks;
    pos = comma + 1;
  }
}

// perf's --filter (event_filters.h) for the recorder: each filter keyed by
// the event it follows (a comma list's last item, as perf's).
std::vector<std::pair<std::string, std::string>> record_filters(const CLI::App& cmd, const RecordArgs& a) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::vector<std::string> per_event = filters_per_event(cmd, a.filter_texts);
  for (size_t i = 0; i < per_event.size() && i < a.events.size(); ++i)
    if (!per_event[i].empty()) out.emplace_back(a.events[i].substr(a.events[i].rfind(',') + 1), per_event[i]);
  return out;
}

// RecordArgs (CLI11) -> RecordOptions: every option parsed and checked,
// before anything is opened.
record::RecordOptions record_options(const RecordArgs& a, const std::vector<std::string>& argv) {
  record::RecordOptions o;
  o.events = a.events;
  if (a.freq_given && a.freq == "max") o.freq_max = true;
  else if (a.freq_given) o.freq = parse_u64("-F", a.freq);
  if (a.period_given) o.period = parse_u64("-c", a.period);
  if (a.pages_given) o.mmap_pages = parse_u64("-m", a.pages);
  if (!a.user_buffer.empty()) o.user_buffer_bytes = parse_buffer_size(a.user_buffer);
  if (a.threads_given) {
    o.threads = true;
    o.threads_spec = a.threads;
  }
  if (!a.call_graph.empty()) o.user_stack_bytes = parse_call_graph(a.call_graph);
  o.lbr_callchain = a.call_graph == "lbr";
  cfi::CfiExtension* cfi_ext = nullptr;
  if (a.call_graph == "cfi") {
    o.cfi_callchain = true;
    o.monotonic_clock = true;  // the program's clock (docs/cfi.md)
    auto ext = std::make_unique<cfi::CfiExtension>();
    cfi_ext = ext.get();
    o.extensions.push_back(std::move(ext));
  }
  o.callchain = a.callchain || !a.call_graph.empty();
  o.inherit = !a.no_inherit;
  o.output = a.output;
  if (!a.pids.empty()) o.pids = record::parse_pid_list("-p", a.pids);
  if (!a.tids.empty()) o.tids = record::parse_pid_list("-t", a.tids);
  o.system_wide = a.system_wide;
  if (!a.cpus.empty()) o.cpus = record::parse_cpu_list(a.cpus);
  if (a.buildid_mode == "auto") o.build_id_mode = record::BuildIdMode::Auto;
  else if (a.buildid_mode == "kernel") o.build_id_mode = record::BuildIdMode::Kernel;
  else if (a.buildid_mode == "recorder") o.build_id_mode = record::BuildIdMode::Recorder;
  else throw_usage("invalid --buildid-mode '{}' (auto, kernel or recorder)", a.buildid_mode);
  if (a.no_buildid && a.buildid_mode_given) throw_usage("-B and --buildid-mode cannot be used together");
  if (a.no_buildid) o.build_id_mode = record::BuildIdMode::None;
  o.per_thread_counts = a.per_thread_counts;
  o.data_addresses = a.data_addresses;
  o.all_user = a.all_user;
  o.all_kernel = a.all_kernel;
  o.user_callchain = a.user_callchain;
  o.verbose = a.verbose;
  if (a.switch_given) o.switch_output = record::parse_switch_output(a.switch_output);
  if (a.max_files_given) {
    uint64_t n = parse_u64("--switch-max-files", a.switch_max_files);
    if (n == 0) throw_usage("invalid --switch-max-files 0: keep at least 1 file");
    o.switch_output.max_files = static_cast<size_t>(std::min<uint64_t>(n, SIZE_MAX));
  }
  if (a.thresh_given && !a.off_cpu) throw_usage("--off-cpu-thresh needs --off-cpu");
  if (a.off_cpu) {
    offcpu::OffcpuOptions oc;
    if (a.thresh_given) oc.thresh_ms = offcpu::parse_offcpu_thresh(a.off_cpu_thresh);
    // The same walker and tables at switch-out (prepared before this one).
    if (cfi_ext)
      oc.cfi_maps = [cfi_ext] {
        return offcpu::CfiMaps{cfi_ext->map_fd("processes"), cfi_ext->map_fd("tables"), cfi_ext->map_fd("rows"),
                               cfi_ext->map_fd("requests"), cfi_ext->map_fd("asked")};
      };
    o.monotonic_clock = true;  // the program's clock: one time line for both (docs/offcpu.md)
    o.extensions.push_back(std::make_unique<offcpu::OffcpuExtension>(oc));
  }
  o.synthesize_tasks = parse_synth(a.synth);
  o.tracepoint_filters = a.filters;
  o.command = a.command;
  o.cmdline = argv;
  o.version = "sonde " SONDE_VERSION;
  o.quiet = a.quiet;
  if (a.level_given) {
    uint64_t level = parse_u64("--compression-level", a.compression_level);
    if (level < 1 || level > 22) throw_usage("invalid --compression-level {}: zstd levels are 1 to 22", level);
    o.compression_level = static_cast<int>(level);
  } else if (a.compress) {
    o.compression_level = 1;  // perf's -z default: fast enough to keep up with the ring buffers
  }
  return o;
}

// The extensions every recording has (the build-id cache keeper, the JIT
// files' keeper) and the factory of those `-e %provider:event` asks for.
record::JitFileKeeper* add_extensions(const RecordArgs& a, record::RecordOptions& o) {
  // -B keeps no binaries either, as perf's -B (no build-id, nothing to key them by).
  if (!a.no_buildid_cache && !a.no_buildid)
    o.extensions.push_back(std::make_unique<record::BuildIdCacheKeeper>(BuildIdCache::default_root(a.buildid_dir)));
  // JIT files (jitdumps, perf maps) copied beside the recording (docs/format.md).
  record::JitFileKeeper* jit_keeper = nullptr;
  if (a.output != "-" && !a.output.empty()) {
    auto keeper = std::make_unique<record::JitFileKeeper>(jit::jit_dir_for(o.output));
    jit_keeper = keeper.get();
    o.extensions.push_back(std::move(keeper));
  }
  // SDT: `-e %provider:event[@path]` specs are served by the probe module.
  // The one cache root: --buildid-dir, as for the binaries kept above.
  // `-e probe:BIN:DEF` (sonde probe's definitions in one step) becomes
  // %GROUP:EVENT@PATH specs whose sites the SDT extension attaches.
  std::string root = BuildIdCache::default_root(a.buildid_dir);
  auto dynamic = std::make_shared<probe::DynamicProbes>(probe::resolve_dynamic_probes(a.events, root));
  o.events = dynamic->events;
  o.extension_factory = [root, dynamic](const std::vector<std::string>& specs) {
    std::vector<std::unique_ptr<record::RecordExtension>> out;
    auto sdt = std::make_unique<probe::SdtExtension>(specs, root);
    for (const auto& [path, sites] : dynamic->sites_by_path) sdt->add_dynamic_sites(path, sites);
    out.push_back(std::move(sdt));
    return out;
  };

  return jit_keeper;
}

// The summary line (not with -q) and the JIT keeper's note.
void print_summary(const record::RecordOptions& o, const record::RecordSummary& s,
                   const record::JitFileKeeper* jit_keeper) {
  if (!o.quiet) {
    std::string packed;
    if (o.compression_level > 0 && s.packed_bytes > 0)
      packed = fmt::format(" (zstd: {} bytes of records in {}, {:.1f}x)", s.plain_bytes, s.packed_bytes,
                           static_cast<double>(s.plain_bytes) / static_cast<double>(s.packed_bytes));
    std::string where = o.output == "-" ? "stdout" : o.output;
    if (o.threads && o.output != "-") where = fmt::format("{} ({} streams)", o.output, s.files);
    if (o.threads && o.output == "-") where = fmt::format("stdout (one stream from {} drain threads)", s.drain_threads);
    if (o.switch_output.enabled) where = fmt::format("{} files {}.<timestamp>", s.files, o.output);
    std::fprintf(stderr, "sonde record: %llu samples, %llu lost, %llu bytes written to %s%s in %.3f s%s%s\n",
                 (unsigned long long)s.samples, (unsigned long long)s.lost, (unsigned long long)s.bytes,
                 where.c_str(), packed.c_str(), s.seconds, drop_details(s).c_str(),
                 s.dropped ? " (increase --user-buffer-size, or lower -F, to lose fewer)"
                 : s.lost  ? " (increase -m or lower -F to lose fewer)"
                           : "");
    if (jit_keeper && jit_keeper->copied() > 0)
      std::fprintf(stderr, "sonde record: %zu JIT files (jitdumps, perf maps) copied to %s\n", jit_keeper->copied(),
                   jit::jit_dir_for(o.output).c_str());
  }
  if (jit_keeper && !jit_keeper->note().empty())
    std::fprintf(stderr, "sonde record: %s\n", jit_keeper->note().c_str());
}

void run_record(const RecordArgs& a, const std::vector<std::string>& argv, int& exit_code) {
  record::RecordOptions o = record_options(a, argv);
  record::JitFileKeeper* jit_keeper = add_extensions(a, o);
  kernel::raise_open_file_limit();  // the process-wide limit is the CLI's to change
  auto s = record::record(o);
  print_summary(o, s, jit_keeper);
  exit_code = s.exit_status;
}

// -N, -B, --buildid-dir, the workload's words and the exit status.
void add_cache_and_command(CLI::App* cmd, RecordArgs& a) {
  cmd->add_flag("-N,--no-buildid-cache", a.no_buildid_cache,
                "Do not keep the mapped binaries in the build-id cache (see docs/record.md)");
  cmd->add_flag("-B,--no-buildid", a.no_buildid,
                "No build-ids: MMAP2 records in the inode form, none read, nothing kept in the cache (docs/record.md)");
  cmd->add_option("--buildid-dir", a.buildid_dir, "Build-id cache root (default: $SONDE_BUILDID_DIR or ~/.debug)");
  cmd->add_option("command", a.command,
                  "Workload to run: [--] CMD [ARGS...]; with -p/-t/-a it only sets how long to record");
  // Like perf, sonde's options end at the first word that is not one: the
  // command's own flags (ls -a, python3 -c) are the command's.
  cmd->positionals_at_end();
  cmd->footer(
      "Exit status: the command's (128+N if it died of signal N), else 0; 2 for malformed input "
      "(bad -e/-F/-c/-C/-m/-p syntax, unknown event); 1 when the request cannot be carried out (no such process "
      "or command, event not supported, output not writable). Input errors never create the output file.");
}

// perf's options whose work sonde does anyway, or that select what perf
// synthesizes: accepted so that perf's command lines run unchanged.
void add_perf_options(CLI::App* cmd, RecordArgs& a) {
  add_filter_option(cmd, a.filter_texts);
  cmd->add_flag("--per-thread", a.per_thread,
                "perf's per-thread ring buffers: accepted (sonde's per-CPU rings record the same samples)");
  cmd->add_option("--synth", a.synth,
                  "Which pre-existing state to synthesize: all (default), no, task, mmap, cgroup (comma list); "
                  "no: nothing read from /proc for -a/-p/-t targets")
      ->capture_default_str();
  cmd->add_flag("--no-bpf-event", a.no_bpf_event, "Accepted for perf's sake (sonde records no BPF program events)");
  cmd->add_flag("--buildid-all", a.buildid_all,
                "Build-ids of every mapped object, hit or not: always so (MMAP2 records carry them)");
}

}  // namespace

constexpr const char* kDataHelp =
    "Data addresses in every sample (PERF_SAMPLE_ADDR, DATA_SRC) and the data mappings, as perf -d; without a PMU "
    "only page-fault events fill them (the faulting address)";

void register_record(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<RecordArgs>();
  auto* cmd = app.add_subcommand("record", "Record a profile into a pipe-mode perf.data stream");
  // One value per -e (a vector option would take the command's words too).
  cmd->add_option("-e,--event", a->events,
                  "Event(s), repeatable, comma lists allowed: cpu-clock (default), task-clock, page-faults, "
                  "context-switches, ..., cycles[:u|:k], ..., tracepoints system:name (globs allowed)")
      ->allow_extra_args(false);
  auto* freq = cmd->add_option("-F,--freq", a->freq,
                               "Sampling frequency in Hz (default 4000), or max (kernel.perf_event_max_sample_rate)");
  auto* period = cmd->add_option("-c,--count", a->period, "Sample every N events instead of -F");
  cmd->add_flag("-g", a->callchain, "Record frame-pointer call chains");
  cmd->add_option("--call-graph", a->call_graph,
                  "Call-chain mode: fp (as -g), or dwarf[,SIZE]: copy SIZE bytes of user stack (default 8192) and "
                  "the user registers with each sample, unwound with DWARF CFI when read (code without frame "
                  "pointers); cfi: unwind user stacks in BPF with tables compiled from the objects' .eh_frame, "
                  "frame-pointer-sized samples (docs/cfi.md); lbr needs a hardware PMU and is refused");
  cmd->add_flag("--user-callchain", a->user_callchain,
                "Call chains without their kernel part (exclude_callchain_kernel; with -g or --call-graph, as perf)");
  auto* pages = cmd->add_option("-m,--mmap-pages", a->pages, "Data pages per ring buffer, a power of two (default 256 = 1 MiB)");
  cmd->add_option("--user-buffer-size", a->user_buffer,
                  "User-space buffer between the ring buffers and the writer, per drain thread (default 16M; "
                  "K, M, G): when it fills, dwarf stacks are cut, then samples dropped, each counted (docs/record.md)");
  auto* threads = cmd->add_flag(
      "--threads{core}", a->threads,
      "--threads[=SPEC]: drain in parallel, one thread per core (default), cpu, package, numa, N threads, or CPU "
      "masks CPUS[/AFFINITY]:... as perf; -o is then a directory of streams, DIR/data and DIR/data.N (docs/record.md)");
  cmd->add_flag("--no-inherit", a->no_inherit, "Do not follow child tasks");
  cmd->add_option("-o,--output", a->output, "Output file, - for standard output")->capture_default_str();
  cmd->add_option("-p,--pid", a->pids, "Record existing processes PID[,PID...]");
  cmd->add_option("-t,--tid", a->tids, "Record existing threads TID[,TID...]");
  cmd->add_flag("-a,--all-cpus", a->system_wide, "System-wide: every process on every CPU");
  cmd->add_option("-C,--cpu", a->cpus, "System-wide on these CPUs only, e.g. 0,2-3");
  auto* buildid_mode = cmd->add_option("--buildid-mode", a->buildid_mode,
                  "How MMAP2 records get build-ids: auto (= recorder), kernel (attr.build_id, the "
                  "recorder fills the gaps), recorder (the recorder reads every mapped object)")
      ->capture_default_str();
  cmd->add_flag("-z,--compress", a->compress,
                "Compress what is recorded with zstd (level 1): perf's -z, --compression-level[=n] (n: the option below)");
  auto* level = cmd->add_option("--compression-level", a->compression_level, "zstd level 1..22 (implies -z)");
  cmd->add_flag("-q,--quiet", a->quiet, "No summary line, no warnings");
  cmd->add_flag("-v,--verbose", a->verbose, "One stderr line per event opened (kernel id included) and for the output file");
  cmd->add_flag("-s,--stat", a->per_thread_counts,
                "Per-thread counts (inherit_stat: a READ record per exiting thread; perf report -T shows them)");
  cmd->add_flag("-d,--data", a->data_addresses, kDataHelp);
  cmd->add_flag("-T,--timestamp", a->sample_time, "Sample timestamps (always recorded: accepted for perf's sake)");
  cmd->add_flag("--all-user", a->all_user, "Only user space (exclude_kernel on every event)");
  cmd->add_flag("--all-kernel", a->all_kernel, "Only the kernel (exclude_user on every event)");
  auto* switch_output = cmd->add_flag(
      "--switch-output{signal}", a->switch_output,
      "--switch-output[=signal|SIZE|TIME]: write OUTPUT.<timestamp> files, switching on SIGUSR2 (in every mode), "
      "at SIZE bytes (B, K, M, G: 100M) or after TIME (s, m, h, d: 30s); each file is a complete recording");
  cmd->add_flag("--off-cpu", a->off_cpu,
                "Also record off-CPU time: events offcpu-time (blocked) and offcpu-time:preempt (runnable, waiting "
                "for a CPU), period = nanoseconds, with kernel and user call chains (BPF on sched_switch; "
                "docs/offcpu.md). Without -e, cpu-clock is recorded too, as perf; -e dummy for off-CPU alone");
  auto* thresh = cmd->add_option("--off-cpu-thresh", a->off_cpu_thresh,
                                 "With --off-cpu: blocks of at least MS milliseconds are one sample each, with "
                                 "their time (default 500; 1 with --call-graph dwarf, since only those carry "
                                 "the user stack copy); shorter ones are summed per thread and stack in the "
                                 "kernel and written every 50 ms");
  auto* max_files = cmd->add_option("--switch-max-files", a->switch_max_files,
                                    "With --switch-output: keep only the newest N files");
  add_perf_options(cmd, *a);
  add_cache_and_command(cmd, *a);
  cmd->callback([cmd, a, freq, period, pages, level, switch_output, max_files, buildid_mode, thresh, threads, &exit_code] {
    set_diagnostics_quiet(a->quiet);
    a->threads_given = threads->count() > 0;
    a->thresh_given = thresh->count() > 0;
    a->switch_given = switch_output->count() > 0;
    a->max_files_given = max_files->count() > 0;
    a->buildid_mode_given = buildid_mode->count() > 0;
    a->freq_given = freq->count() > 0;
    a->period_given = period->count() > 0;
    a->pages_given = pages->count() > 0;
    a->level_given = level->count() > 0;
    a->filters = record_filters(*cmd, *a);
    run_record(*a, own_cmdline(), exit_code);
  });
}

}  // namespace sonde::cli
