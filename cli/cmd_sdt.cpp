// `sonde sdt add|list|remove`: the SDT probe cache (src/probe/probe_cache.h);
// `sonde sdt stats`: probe hits and argument histograms of a recording.
#include <fmt/format.h>

#include <cstdio>
#include <set>

#include "analysis/directory_reader.h"
#include "commands.h"
#include "format/stream_reader.h"
#include "probe/probe_cache.h"
#include "probe/sdt_latency.h"
#include "probe/sdt_spec.h"
#include "probe/sdt_stats.h"
#include "analysis/reading_outcome.h"
#include "analysis/recording_walker.h"
#include "util/diagnostics.h"
#include "util/error.h"

namespace sonde::cli {
namespace {

// `sonde sdt list` output: one line per site, held until every file and
// spec is read, so an error leaves no partial listing.
class SiteLines {
 public:
  void add(const probe::SdtFile& f, const std::string& build_id_hex, const probe::SdtSite& s) {
    fmt::format_to(std::back_inserter(buf_), "%{}:{} {} {} 0x{:x} ", s.provider, s.name, f.path,
                   build_id_hex.empty() ? "-" : build_id_hex, s.pc);
    if (s.has_semaphore())
      fmt::format_to(std::back_inserter(buf_), "semaphore=0x{:x} ", s.semaphore);
    else
      append("semaphore=no ");
    append(s.args.empty() ? "-" : s.args);
    append("\n");
  }
  void write() {
    std::fwrite(buf_.data(), 1, buf_.size(), stdout);
    buf_.clear();
  }

 private:
  void append(std::string_view s) { buf_.append(s.data(), s.data() + s.size()); }
  fmt::memory_buffer buf_;
};

struct SdtOptions {
  std::string buildid_dir;
  std::vector<std::string> paths;
  bool deps = false;
};

// `sdt add PATH... [--deps]`: scan and cache.
void add_sdt_add(CLI::App* sdt, const std::shared_ptr<SdtOptions>& opts) {
  auto* add = sdt->add_subcommand("add", "Scan binaries for SDT probes and cache them by build-id");
  add->add_option("paths", opts->paths, "ELF files")->required();
  add->add_flag("--deps", opts->deps, "Also scan the shared libraries they need (DT_NEEDED)");
  add->add_option("--buildid-dir", opts->buildid_dir, "Cache folder (default $SONDE_BUILDID_DIR or ~/.debug)");
  add->callback([opts] {
    probe::ProbeCache cache(probe::ProbeCache::default_root(opts->buildid_dir));
    std::vector<std::string> todo = opts->paths;
    std::set<std::string> done;
    for (size_t i = 0; i < todo.size(); ++i) {
      bool explicit_path = i < opts->paths.size();
      if (!done.insert(todo[i]).second) continue;
      probe::SdtFile f;
      if (explicit_path) {
        f = cache.add(todo[i]);
      } else {
        f = cache.get(todo[i], true);  // a dependency: cached only when it has probes
      }
      if (explicit_path || !f.sites.empty()) {
        std::set<std::string> names;
        for (const auto& s : f.sites) names.insert(s.full_name());
        std::printf("%s %s: %zu probe(s), %zu site(s)\n", f.path.c_str(),
                    f.build_id.empty() ? "-" : f.build_id.hex().c_str(), names.size(), f.sites.size());
      }
      if (opts->deps)
        for (const auto& n : f.needed)
          if (auto p = probe::find_needed_library(n, f)) todo.push_back(*p);
    }
  });
}

// `sdt list [PATH... | %PROVIDER[:EVENT]]`.
void add_sdt_list(CLI::App* sdt, const std::shared_ptr<SdtOptions>& opts) {
  auto* list = sdt->add_subcommand(
      "list", "List probe sites: of the given binaries, of %PROVIDER[:EVENT] in the cache, or all cached");
  list->add_option("what", opts->paths, "PATH... or %PROVIDER[:EVENT]");
  list->add_option("--buildid-dir", opts->buildid_dir, "Cache folder (default $SONDE_BUILDID_DIR or ~/.debug)");
  list->callback([opts] {
    probe::ProbeCache cache(probe::ProbeCache::default_root(opts->buildid_dir));
    SiteLines out;
    std::vector<probe::ProbeSpec> specs;
    std::vector<std::string> paths;
    for (const auto& w : opts->paths) {
      if (probe::is_sdt_spec(w))
        specs.push_back(probe::parse_probe_spec(w));
      else
        paths.push_back(w);
    }
    for (const auto& p : paths) {
      auto f = cache.get(p, false, probe::SdtArgs::Skip);
      const std::string bid = f.build_id.empty() ? "" : f.build_id.hex();
      for (const auto& s : f.sites) out.add(f, bid, s);
    }
    if (!specs.empty() || opts->paths.empty()) {
      // From the index: each cached binary once, its matching sites.
      std::set<std::pair<std::string, std::string>> files;
      for (const auto& e : cache.index()) {
        bool want = specs.empty();
        for (const auto& sp : specs) want = want || sp.matches(e.provider, e.name);
        if (want) files.emplace(e.path, e.build_id);
      }
      size_t matched = 0;
      for (const auto& [path, bid] : files) {
        auto f = cache.load(path, bid);
        if (!f) continue;
        const std::string hex = f->build_id.empty() ? "" : f->build_id.hex();
        for (const auto& s : f->sites) {
          bool want = specs.empty();
          for (const auto& sp : specs) want = want || sp.matches(s.provider, s.name);
          if (want) out.add(*f, hex, s), ++matched;
        }
      }
      if (!specs.empty() && matched == 0)
        throw_runtime("sdt: no cached probe matches {} (add binaries with `sonde sdt add PATH`)", specs[0].text);
    }
    out.write();
  });
}

// `sdt remove PATH|BUILDID`.
void add_sdt_remove(CLI::App* sdt, const std::shared_ptr<SdtOptions>& opts) {
  auto* remove = sdt->add_subcommand("remove", "Remove a binary's probes from the cache (by path or build-id)");
  remove->add_option("what", opts->paths, "PATH or BUILDID")->required();
  remove->add_option("--buildid-dir", opts->buildid_dir, "Cache folder (default $SONDE_BUILDID_DIR or ~/.debug)");
  remove->callback([opts] {
    probe::ProbeCache cache(probe::ProbeCache::default_root(opts->buildid_dir));
    for (const auto& w : opts->paths) {
      size_t n = cache.remove(w);
      if (n == 0) throw_runtime("sdt: {} is not in the probe cache", w);
      std::printf("removed %s (%zu cache entr%s)\n", w.c_str(), n, n == 1 ? "y" : "ies");
    }
  });
}

// `sdt stats`: hits and argument statistics of a recording.
void add_sdt_stats(CLI::App* sdt) {
  auto* stats = sdt->add_subcommand(
      "stats", "Per probe of a recording: hits, and per argument count, min, max, mean and a histogram");
  auto input = std::make_shared<std::string>("sonde.data");
  auto globs = std::make_shared<std::vector<std::string>>();
  stats->add_option("-i,--input", *input, "Recording to read, - for standard input")->capture_default_str();
  stats->add_option("probe", *globs, "Only probes matching these patterns, e.g. '%myapp:req_*'");
  auto json = std::make_shared<std::string>("text");
  stats->add_option("--format", *json, "text or json")->capture_default_str()->check(CLI::IsMember({"text", "json"}));
  stats->callback([input, globs, json] {
    set_diagnostics_prefix("sonde sdt stats");
    auto reader = analysis::open_input(*input);
    analysis::RecordingWalker walker(*reader, analysis::no_unwinding());
    probe::SdtStats st;
    walker.run([&](const format::Sample& s) { st.add(s); });
    std::string text = *json == "json" ? st.format_json(*globs) : st.format(*globs);
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (std::fflush(stdout) != 0) throw_runtime("cannot write the output: {}", errno_text(errno));
    if (!st.any(*globs)) note("no SDT probe hits{} in {}", globs->empty() ? "" : " match", *input);
    analysis::conclude_reading(analysis::outcome_of(*reader), *input);
  });
}

// `sdt latency BEGIN END`: intervals between matched hits.
void add_sdt_latency(CLI::App* sdt) {
  auto* latency = sdt->add_subcommand(
      "latency", "Time from each hit of BEGIN to the matching hit of END (per thread, or by an argument)");
  auto lat = std::make_shared<probe::LatencySpec>();
  auto lat_input = std::make_shared<std::string>("sonde.data");
  auto key = std::make_shared<std::string>("tid");
  latency->add_option("-i,--input", *lat_input, "Recording to read, - for standard input")->capture_default_str();
  latency->add_option("--key", *key, "Match pairs by tid (default) or by argN, e.g. a request id")->capture_default_str();
  latency->add_option("begin", lat->begin, "%PROVIDER:EVENT that starts an interval")->required();
  latency->add_option("end", lat->end, "%PROVIDER:EVENT that ends it")->required();
  latency->callback([lat, lat_input, key] {
    set_diagnostics_prefix("sonde sdt latency");
    lat->key_arg = probe::parse_latency_key(*key);
    probe::SdtLatency l(*lat);  // checks the names before the input is read
    auto reader = analysis::open_input(*lat_input);
    analysis::RecordingWalker walker(*reader, analysis::no_unwinding());
    walker.run([&](const format::Sample& s) { l.add(s); });
    analysis::throw_if_stopped(analysis::outcome_of(walker.stats()), *lat_input);
    l.require_hits(*lat_input);
    std::string text = l.format();
    std::fwrite(text.data(), 1, text.size(), stdout);
    analysis::conclude_reading(analysis::outcome_of(*reader), *lat_input);
  });
}

}  // namespace

void register_sdt(CLI::App& app, int& /*exit_code*/) {
  auto* sdt = app.add_subcommand("sdt", "SDT (USDT) probes: the probe cache, and hit/argument statistics of a recording");
  sdt->require_subcommand(1);
  auto opts = std::make_shared<SdtOptions>();
  add_sdt_add(sdt, opts);
  add_sdt_list(sdt, opts);
  add_sdt_remove(sdt, opts);
  add_sdt_stats(sdt);
  add_sdt_latency(sdt);
}

}  // namespace sonde::cli
