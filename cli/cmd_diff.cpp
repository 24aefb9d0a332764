// sonde diff BASE NEW: two recordings compared per symbol, as perf diff
// (text or JSON), or as a differential flame graph (--to html).
#include <algorithm>
#include <cstdio>
#include <memory>

#include "analysis/directory_reader.h"
#include "analysis/profile_builder.h"
#include "commands.h"
#include "fleet/fleet_query.h"
#include "fleet/store_url.h"
#include "convert/convert.h"
#include "diff/diff_table.h"
#include "diff/multi_diff.h"
#include "diff/object_keys.h"
#include "format/stream_reader.h"
#include "reading_options.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace sonde::cli {

namespace {

struct DiffArgs {
  std::string base, now;
  std::vector<std::string> more;  // F2...: perf diff's three or more files
  std::string sort = "dso,sym";
  double percent_limit = 0;
  std::string compute = "delta-abs";
  std::string format = "text";
  std::string to, output;
  SymbolArgs symbols;
};

diff::DiffOptions diff_options(const DiffArgs& a) {
  diff::DiffOptions o;
  o.sort = a.sort;
  if (a.percent_limit < 0 || a.percent_limit > 100) throw_usage("diff: --percent-limit must be within 0..100");
  o.percent_limit = a.percent_limit;
  if (a.compute == "delta-abs") o.compute = diff::Compute::kDeltaAbs;
  else if (a.compute == "delta") o.compute = diff::Compute::kDelta;
  else if (a.compute == "ratio") o.compute = diff::Compute::kRatio;
  else throw_usage("diff: unknown --compute '{}' (delta-abs, delta or ratio)", a.compute);
  if (a.format != "text" && a.format != "json") throw_usage("diff: unknown --format '{}' (text or json)", a.format);
  if (!a.to.empty() && a.to != "html") throw_usage("diff: unknown --to '{}' (html)", a.to);
  if (!a.to.empty() && a.output.empty()) throw_usage("diff: --to html needs -o FILE (- for standard output)");
  if (a.to.empty() && !a.output.empty()) throw_usage("diff: -o goes with --to html");
  if (a.base == "-" && a.now == "-") throw_usage("diff: only one of BASE and NEW can be standard input");
  return o;
}

analysis::Profile read_profile(const std::string& path, Symbolizer& symbolizer) {
  if (fleet::is_store_url(path)) {
    auto p = fleet::load_fleet_profile(path);
    if (p.samples.empty()) throw_runtime("diff: no samples in the store match {}", path);
    return p;
  }
  auto reader = analysis::open_input(path);
  analysis::ProfileOptions po;
  auto p = analysis::build_profile(*reader, symbolizer, po);
  if (p.samples.empty()) throw_runtime("diff: no samples in {}", path);
  return p;
}

std::string file_label(const std::string& path) {
  return path == "-" ? "stdin" : path.substr(path.rfind('/') + 1);
}

void write_html(const DiffArgs& a, const analysis::Profile& base, const analysis::Profile& now,
                const std::vector<diff::EventDiff>& diffs) {
  const diff::ObjectKeys keys(base, now);
  convert::HtmlOptions ho;
  ho.event = diffs.front().event;
  ho.title = fmt::format("{} against {} ({})", file_label(a.now), file_label(a.base), ho.event);
  ho.baseline = convert::HtmlBaseline{&base, file_label(a.base), [&keys](const convert::Frame& f, bool in_base) {
                                        return std::string(in_base ? diff::file_name(f.dso) : keys.new_key(f.dso, f.build_id));
                                      }};
  if (a.output == "-") {
    convert::write_html(now, ho, std::cout);
    std::cout.flush();
    if (!std::cout) throw_runtime("cannot write to standard output");
    return;
  }
  AtomicFile out(a.output, {.temp_name = AtomicFile::TempName::Hidden, .remove_on_signal = true});
  convert::write_html(now, ho, out.stream());
  out.commit();
}

// perf diff F0 F1 F2...: one delta column per file against F0 (text only).
void run_multi_diff(const DiffArgs& a, const diff::DiffOptions& o) {
  if (!a.to.empty() || a.format != "text") throw_usage("diff: --to and --format json compare two recordings");
  std::vector<std::string> paths = {a.base, a.now};
  paths.insert(paths.end(), a.more.begin(), a.more.end());
  if (std::count(paths.begin(), paths.end(), "-") > 1) throw_usage("diff: only one recording can be standard input");
  Symbolizer base_symbols(a.symbols.options(a.base));
  const analysis::Profile base = read_profile(a.base, base_symbols);
  std::vector<std::vector<diff::EventDiff>> pairs;
  for (size_t i = 1; i < paths.size(); ++i) {
    Symbolizer symbols(a.symbols.options(paths[i]));
    pairs.push_back(diff::compute_diff(base, read_profile(paths[i], symbols), o));
  }
  const std::string text = diff::format_multi_diff_text(pairs, paths, o);
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
    throw_runtime("cannot write the diff");
}

void run_diff(const DiffArgs& a) {
  const diff::DiffOptions o = diff_options(a);
  if (!a.more.empty()) return run_multi_diff(a, o);
  // One symbolizer per recording: each finds its own copies of JIT files.
  Symbolizer base_symbols(a.symbols.options(a.base)), new_symbols(a.symbols.options(a.now));
  const analysis::Profile base = read_profile(a.base, base_symbols);
  const analysis::Profile now = read_profile(a.now, new_symbols);
  const auto diffs = diff::compute_diff(base, now, o);
  if (!a.to.empty()) return write_html(a, base, now, diffs);
  const std::string text = a.format == "json" ? diff::format_diff_json(diffs, o) : diff::format_diff_text(diffs, o);
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
    throw_runtime("cannot write the diff");
}

}  // namespace

void register_diff(CLI::App& app, int& /*exit_code*/) {
  auto a = std::make_shared<DiffArgs>();
  auto* cmd = app.add_subcommand("diff", "Compare two recordings per symbol, as perf diff, or as a differential flame graph");
  cmd->add_option("BASE", a->base, "The baseline recording (file or pipe mode; - for standard input)")->required();
  cmd->add_option("NEW", a->now, "The recording compared with it")->required();
  cmd->add_option("MORE", a->more, "More recordings, each compared with BASE in its own column (perf diff F0 F1 F2...)");
  cmd->add_option("-s,--sort", a->sort, "Keys rows are matched by: comm, pid, dso, sym")->capture_default_str();
  cmd->add_option("--percent-limit", a->percent_limit, "Hide rows under this share on both sides");
  cmd->add_option("-c,--compute", a->compute, "The last column and the rows' order, as perf diff: delta-abs, delta, ratio")
      ->capture_default_str();
  cmd->add_option("--format", a->format, "text (perf diff's layout) or json")->capture_default_str();
  cmd->add_option("--to", a->to, "html: a differential flame graph of NEW coloured against BASE");
  cmd->add_option("-o,--output", a->output, "The page's file with --to html (- for standard output)");
  a->symbols.add_to(cmd);
  cmd->callback([a] { run_diff(*a); });
}

}  // namespace sonde::cli
