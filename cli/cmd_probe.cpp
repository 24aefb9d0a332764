// `sonde probe`: perf probe's dynamic uprobes (src/probe/probe_command.h):
// define tracefs uprobe events from FUNC/LINE definitions with DWARF
// arguments, print them (-D), list (-l) and delete (-d) them, and list a
// binary's functions (-F), variables (-V) and lines (-L).
#include <cstdio>

#include "commands.h"
#include "probe/dwarf_probe_finder.h"
#include "probe/line_range.h"
#include "probe/probe_cache.h"
#include "probe/probe_command.h"
#include "probe/probe_definition_cache.h"
#include "probe/probe_definition.h"
#include "probe/uprobe_events.h"
#include "util/diagnostics.h"
#include "util/error.h"

namespace sonde::cli {
namespace {

struct ProbeOptions {
  std::string binary;
  std::vector<std::string> words;
  std::vector<std::string> del;
  std::string definition_only, vars, line_of, buildid_dir;
  std::string list_filter, funcs_filter;
  bool list = false, funcs = false, force = false, quiet = false, cache = false, externs = false;
};

void print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

// Exactly one action: counts the ones given.
int actions(const ProbeOptions& o) {
  return !o.words.empty() + !o.del.empty() + !o.definition_only.empty() + !o.vars.empty() + !o.line_of.empty() +
         o.list + o.funcs;
}

// --cache: the definitions kept in the build-id cache.
void run_cache(const ProbeOptions& o, const probe::ProbeRequest& req) {
  if (!o.del.empty()) {
    for (const auto& spec : probe::delete_cached_probes(o.del, req.cache_root))
      if (!o.quiet) std::fprintf(stderr, "Removed cached definition: %s\n", spec.c_str());
  } else if (o.list) {
    print(probe::cached_probes_text(req.cache_root));
  } else if (!o.words.empty()) {
    auto added = probe::cache_probes(req);
    if (!o.quiet) std::fputs(probe::added_text(added).c_str(), stderr);
  } else {
    throw_usage("probe: --cache goes with a DEFINITION, -l or -d");
  }
}

void run_listing(const ProbeOptions& o, const std::string& root) {
  if (o.binary.empty()) throw_usage("probe: -x BINARY is needed");
  probe::ProbeFinder finder(o.binary, root);
  if (o.funcs)
    for (const auto& f : finder.functions(o.funcs_filter)) print(f + "\n");
  else if (!o.vars.empty())
    print(finder.variables(probe::parse_probe_definition(o.vars), o.externs));
  else
    print(finder.lines(probe::parse_line_range(o.line_of)));
}

void run(const ProbeOptions& o) {
  if (o.externs && o.vars.empty()) throw_usage("probe: --externs goes with -V");
  if (actions(o) != 1)
    throw_usage("probe: give one of DEFINITION, -a, -d, -D, -l, -F, -V, -L (see sonde probe --help)");
  std::string root = probe::ProbeCache::default_root(o.buildid_dir);
  probe::ProbeRequest req{o.binary, joined(o.words), o.force, root};
  if (o.cache) return run_cache(o, req);
  if (!o.del.empty()) {
    for (const auto& name : probe::delete_uprobe_events(o.del))
      if (!o.quiet) std::fprintf(stderr, "Removed event: %s\n", name.c_str());
  } else if (o.list) {
    print(probe::list_probes_text(o.list_filter, root));
  } else if (!o.words.empty()) {
    auto added = req.definition.starts_with("%") ? probe::add_cached_probes(req) : probe::add_probes(req);
    if (!o.quiet) std::fputs(probe::added_text(added).c_str(), stderr);
  } else if (!o.definition_only.empty()) {
    req.definition = o.definition_only;
    for (const auto& p : probe::resolve_probes(req)) print(p.definition() + "\n");
  } else {
    run_listing(o, root);
  }
}

}  // namespace

void register_probe(CLI::App& app, int& /*exit_code*/) {
  auto o = std::make_shared<ProbeOptions>();
  auto* cmd = app.add_subcommand("probe", "Define dynamic uprobes from functions, lines and DWARF variables (perf probe)");
  cmd->footer(
      "DEFINITION: [[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFF|%return] [ARG...] or SRC:LINE [ARG...]\n"
      "ARG: [NAME=]VAR[->field|.field|[N]][:TYPE] | $params | $vars | $retval | %REG; TYPE: u8..s64, x8..x64, string\n"
      "%[GROUP:]EVENT: define the events cached (--cache) for the binary's build-id");
  cmd->add_option("-x,--exec", o->binary, "The binary (executable or library) to probe");
  cmd->add_option("definition", o->words, "Probe definition (words are joined by spaces)");
  cmd->add_option("-a,--add", o->words, "Probe definition");
  cmd->add_option("-d,--del", o->del, "Delete events matching [GROUP:]EVENT globs");
  cmd->add_option("-D,--definition", o->definition_only, "Print the uprobe_events lines without defining them");
  cmd->add_option("-V,--vars", o->vars, "Variables available at a probe point");
  cmd->add_flag("--externs", o->externs, "With -V: the compilation unit's static and global variables too");
  cmd->add_option("-L,--line", o->line_of, "Probeable source lines: FUNC[@SRC][:START[-END|+COUNT]] or SRC[:RANGE]");
  auto* list = cmd->add_option("-l,--list", o->list_filter, "List defined uprobe events [matching GROUP:EVENT]");
  list->expected(0, 1);
  auto* funcs = cmd->add_option("-F,--funcs", o->funcs_filter, "List the binary's functions [matching a glob]");
  funcs->expected(0, 1);
  cmd->add_flag("-f,--force", o->force, "Add a numbered event when the name is taken");
  cmd->add_flag("-q,--quiet", o->quiet, "Print nothing but errors");
  cmd->add_flag("--cache", o->cache,
                "With a DEFINITION: also keep it in the build-id cache; with -l / -d: list / delete cached ones");
  cmd->add_option("--buildid-dir", o->buildid_dir, "Build-id cache (default $SONDE_BUILDID_DIR or ~/.debug)");
  cmd->callback([o, list, funcs] {
    o->list = list->count() > 0;
    o->funcs = funcs->count() > 0;
    set_diagnostics_quiet(o->quiet);
    run(*o);
  });
}

}  // namespace sonde::cli
