#include "report/buildid_listing.h"

#include <set>
#include <unordered_set>

#include "analysis/frames.h"
#include "analysis/recording_walker.h"

namespace sonde::report {

std::vector<BuildIdEntry> list_build_ids(format::RecordReader& reader, bool with_hits) {
  // Unwound user frames are hits too, found in the default cache.
  analysis::RecordingWalker walker(reader, analysis::dwarf_unwinding(""));
  std::unordered_set<uint32_t> hit;  // mapping indexes
  std::vector<analysis::Frame> frames;
  walker.run([&](const format::Sample& s) {
    if (!with_hits) return;
    analysis::sample_frames(s, walker.space(), frames);
    for (const auto& f : frames)
      if (f.map) hit.insert(f.map->index);
  });
  std::set<std::pair<std::string, std::string>> seen;  // (path, id)
  for (const auto& m : walker.space().all_mappings()) {
    if (m.build_id.empty() || (with_hits && !hit.count(m.index))) continue;
    seen.emplace(std::string(m.path), m.build_id.hex());
  }
  if (!with_hits)
    for (const auto& [path, id] : walker.space().header_build_ids()) seen.emplace(std::string(path), id.hex());
  std::vector<BuildIdEntry> out;
  for (const auto& [path, id] : seen) out.push_back({id, path});
  return out;
}

}  // namespace sonde::report
