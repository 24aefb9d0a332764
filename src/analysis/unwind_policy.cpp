#include "analysis/unwind_policy.h"

#include "format/perf_abi.h"

namespace sonde::analysis {

UnwinderFactory dwarf_unwinding(std::string cache_root) {
  return [root = std::move(cache_root)](const format::Session& session) -> std::unique_ptr<DwarfUnwinder> {
    auto arch = session.feature_string(format::kFeatArch);
    if (arch && !arch->empty() && *arch != "x86_64") return nullptr;
    return std::make_unique<DwarfUnwinder>(root);
  };
}

UnwinderFactory no_unwinding() {
  return [](const format::Session&) { return nullptr; };
}

}  // namespace sonde::analysis
