#include "probe/probe_definition_cache.h"

#include <fnmatch.h>

#include <fmt/format.h>

#include "cache/buildid_cache.h"
#include "elf/build_id.h"
#include "probe/probe_cache.h"
#include "probe/probe_definition.h"
#include "probe/probes_file.h"
#include "probe/uprobe_events.h"
#include "util/error.h"
#include "util/fs.h"

namespace sonde::probe {
namespace {

// perf's synthesize_perf_probe_command: [GROUP:EVENT=]POINT ARGS, the
// arguments with the names perf's parser gives them (id=req->id).
std::string definition_text(const ProbeDefinition& def, const std::string& group) {
  std::string s;
  if (!def.event.empty()) s = group + ":" + def.event + "=";
  if (def.absolute_line) {
    s += fmt::format("@{}:{}", def.file, def.line);
  } else {
    s += def.function;
    if (def.has_offset)
      s += fmt::format("+{}", def.offset);
    else if (def.line)
      s += fmt::format(":{}", def.line);
    else if (def.retprobe)
      s += "%return";
    if (!def.file.empty()) s += "@" + def.file;
  }
  for (const auto& a : def.args) {
    s += " ";
    if (a.name.empty() && !a.fields.empty()) {
      for (auto it = a.fields.rbegin(); it != a.fields.rend(); ++it)
        if (!it->is_index) {
          s += it->name + "=";
          break;
        }
    }
    s += a.text();
  }
  return s;
}

bool matches(const std::string& glob, const std::string& group, const std::string& event) {
  size_t c = glob.find(':');
  std::string gg = c == std::string::npos ? "*" : glob.substr(0, c);
  std::string eg = c == std::string::npos ? glob : glob.substr(c + 1);
  return fnmatch(gg.c_str(), group.c_str(), 0) == 0 && fnmatch(eg.c_str(), event.c_str(), 0) == 0;
}

// Whether any line of a `#` entry defines an event matching the glob.
bool entry_matches(const ProbesFileEntry& e, const std::string& glob) {
  for (const auto& l : e.lines)
    if (auto p = parse_uprobe_event_line(l); p && matches(glob, p->group, p->event)) return true;
  return false;
}

}  // namespace

std::vector<TraceProbe> cache_probes(const ProbeRequest& req) {
  ProbeDefinition def = parse_probe_definition(req.definition);
  auto added = add_probes(req);
  // As perf probe --cache: the binary and its SDT notes are cached too.
  ProbeCache(req.cache_root).get(added.front().path, true);
  BuildIdCache cache(req.cache_root);
  auto entry = cache.add(added.front().path);
  auto entries = read_probes_file(entry.dir);
  std::string spec = definition_text(def, added.front().group);
  std::erase_if(entries, [&](const ProbesFileEntry& e) { return !e.sdt && e.spec == spec; });
  ProbesFileEntry e{false, spec, {}};
  for (const auto& p : added) e.lines.push_back(p.definition());
  entries.push_back(std::move(e));
  write_probes_file(entry.dir, entries);
  return added;
}

std::string cached_probes_text(const std::string& cache_root) {
  std::string out;
  for (const auto& entry : BuildIdCache(cache_root).list()) {
    auto entries = read_probes_file(entry.dir);
    if (entries.empty()) continue;
    out += fmt::format("{} ({}):\n", entry.path, entry.build_id.hex());
    for (const auto& e : entries) out += e.spec + "\n";
  }
  return out;
}

std::vector<std::string> delete_cached_probes(const std::vector<std::string>& globs, const std::string& cache_root) {
  std::vector<std::string> removed;
  std::vector<bool> used(globs.size(), false);
  for (const auto& entry : BuildIdCache(cache_root).list()) {
    auto entries = read_probes_file(entry.dir);
    size_t before = entries.size();
    std::erase_if(entries, [&](const ProbesFileEntry& e) {
      bool hit = false;
      for (size_t i = 0; i < globs.size(); ++i)
        if (!e.sdt && entry_matches(e, globs[i])) used[i] = hit = true;
      if (hit) removed.push_back(e.spec);
      return hit;
    });
    if (entries.size() != before) write_probes_file(entry.dir, entries);
  }
  for (size_t i = 0; i < globs.size(); ++i)
    if (!used[i]) throw_usage("probe: no cached definition matches '{}' in {}", globs[i], cache_root);
  return removed;
}

std::vector<TraceProbe> add_cached_probes(const ProbeRequest& req) {
  auto real = real_path(req.binary);
  if (!real) throw_usage("probe: {}: no such file", req.binary);
  auto id = read_build_id(*real);
  if (!id || id->empty()) throw_usage("probe: {} has no build-id: nothing can be cached for it", *real);
  std::string glob = req.definition.substr(1);
  auto entry = BuildIdCache(req.cache_root).find(*id);
  std::vector<TraceProbe> probes;
  if (entry)
    for (const auto& e : read_probes_file(entry->dir))
      for (const auto& l : e.lines) {
        auto p = parse_uprobe_event_line(l);
        if (!e.sdt && p && matches(glob, p->group, p->event)) {
          p->path = *real;  // the binary may have moved since
          p->point = e.spec;
          probes.push_back(std::move(*p));
        }
      }
  if (probes.empty())
    throw_usage("probe: no cached definition of {} (build-id {}) matches '{}' (sonde probe --cache --list)", *real,
                id->hex(), glob);
  return add_uprobe_events(std::move(probes), req.force);
}

}  // namespace sonde::probe
