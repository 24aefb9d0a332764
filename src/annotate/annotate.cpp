#include "annotate/annotate.h"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/directory_reader.h"
#include "analysis/reading_outcome.h"
#include "analysis/recording_walker.h"
#include "analysis/symbol_resolver.h"
#include "analysis/unwind_policy.h"
#include "cache/buildid_cache.h"
#include "util/error.h"

namespace sonde::annotate {

std::vector<EventHists> collect_hists(const std::string& input, Symbolizer& symbolizer, const CollectOptions& opts,
                                      std::vector<std::string>& notes) {
  auto reader = analysis::open_input(input);
  analysis::RecordingWalker walker(*reader, analysis::dwarf_unwinding(symbolizer.options().cache_root));
  walker.set_jit_dirs(symbolizer.options().jit_dirs);
  analysis::SymbolResolver resolver(symbolizer);
  HistCollector collector(resolver, walker.space(), opts);
  walker.run([&](const format::Sample& s) { collector.add(s); });
  const auto& st = walker.stats();
  if (const analysis::DwarfUnwinder* u = walker.unwinder(); u && !u->note().empty()) notes.push_back(u->note());
  if (!walker.jit_note().empty()) notes.push_back(walker.jit_note());
  // The reading policy's notes, said after the listing; its stop, at once.
  const analysis::ReadingOutcome outcome = analysis::outcome_of(st);
  for (auto& line : analysis::reading_notes(outcome)) notes.push_back(std::move(line));
  analysis::throw_if_stopped(outcome, input);
  return collector.take();
}

std::vector<const SymbolHist*> symbols_to_annotate(const EventHists& ev, const std::vector<std::string>& names,
                                                   double percent_limit) {
  std::vector<const SymbolHist*> out;
  for (const auto& s : ev.symbols) {
    if (!names.empty()) {
      if (std::find(names.begin(), names.end(), s.name) == names.end()) continue;
      if (s.self_total.samples == 0 && s.children_total.samples == 0) continue;
    } else {
      if (s.self_total.samples == 0) continue;
      double p = ev.total_period ? 100.0 * double(s.self_total.period) / double(ev.total_period) : 0;
      if (p < percent_limit) continue;
    }
    out.push_back(&s);
  }
  std::stable_sort(out.begin(), out.end(), [](const SymbolHist* a, const SymbolHist* b) {
    if (a->self_total.period != b->self_total.period) return a->self_total.period > b->self_total.period;
    return a->children_total.period > b->children_total.period;
  });
  return out;
}

namespace {

// A named symbol without samples: say so, and which objects had samples
// sonde could not name (not found, mismatched), since it may be in one.
[[noreturn]] void throw_not_in_recording(const std::string& name, const std::vector<EventHists>& events,
                                         const SymbolizerOptions& so) {
  std::unique_ptr<BuildIdCache> cache;
  if (so.use_cache) cache = std::make_unique<BuildIdCache>(BuildIdCache::default_root(so.cache_root));
  std::string why;
  for (const auto& ev : events)
    for (const auto& u : ev.unresolved) {
      if (why.size() >= 400) break;
      why += fmt::format("; {} samples in {}: {}", u.samples, u.dso, u.why);
      if (u.not_found) why += fmt::format(" (looked in {})", places_looked(u.dso, u.build_id, u.pid, cache.get()));
    }
  throw_runtime("annotate: no samples in a symbol named '{}' in the recording{}", name, why);
}

}  // namespace

void run_annotate(const AnnotateOptions& opts, std::FILE* out, std::vector<std::string>& notes) {
  Symbolizer symbolizer(opts.symbolizer);
  CollectOptions co;
  co.symbols = opts.symbols;
  co.dsos = opts.dsos;
  co.inclusive = opts.inclusive;
  Annotator annotator(symbolizer, opts.syntax, opts.code);
  co.kernel_sizes = annotator.vmlinux_symbols();
  auto events = collect_hists(opts.input, symbolizer, co, notes);
  for (const auto& name : opts.symbols) {
    bool found = std::any_of(events.begin(), events.end(), [&](const EventHists& ev) {
      return std::any_of(ev.symbols.begin(), ev.symbols.end(), [&](const SymbolHist& s) {
        return s.name == name && (s.self_total.samples || s.children_total.samples);
      });
    });
    if (!found && !opts.skip_missing) throw_not_in_recording(name, events, opts.symbolizer);
    if (!found) notes.push_back(fmt::format("no samples in a symbol named '{}'", name));
  }
  SourceFiles sources;
  const bool lines = opts.print.source || opts.print.print_lines;
  for (const auto& ev : events) {
    std::vector<AnnotatedSymbol> annotated;
    for (const SymbolHist* sym : symbols_to_annotate(ev, opts.symbols, opts.percent_limit)) {
      try {
        annotated.push_back(annotator.annotate(*sym, lines));
      } catch (const Error& e) {
        if (!opts.symbols.empty() && !opts.skip_missing) throw;
        if (!opts.skip_missing) notes.push_back(e.what());
      }
    }
    if (opts.print.print_lines && annotated.size() > 1) print_cross_summary(annotated, ev, opts.print, out);
    for (const auto& a : annotated) print_stdio(a, ev, opts.print, sources, out);
  }
  for (const auto& n : symbolizer.notes()) notes.push_back(n);
}

}  // namespace sonde::annotate
