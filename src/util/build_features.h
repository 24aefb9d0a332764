// What this build of sonde was built with, in the terms of
// `perf version --build-options` (perf's shell tests ask it, e.g. whether
// Python scripting is there: sonde has none).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sonde {

struct BuildFeature {
  const char* name;   // perf's feature name: "libpython", "zstd"...
  bool on;
  const char* macro;  // perf's HAVE_* macro, printed as perf does
};

std::vector<BuildFeature> build_features();

// One line per feature, perf's layout: "             zstd: [ on  ]  # HAVE_ZSTD_SUPPORT".
std::string format_build_features(const std::vector<BuildFeature>& features);

// `perf check feature`'s names (newer perf's list: build_features() and
// bpf_skeletons, dwarf-unwind, libcapstone, libtraceevent, aio...), found
// by name or macro, case-blind; nullptr for a name perf does not know.
const BuildFeature* find_checkable_feature(std::string_view name);

}  // namespace sonde
