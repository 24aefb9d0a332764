// How a walk treats samples that carry user registers and a copy of the
// user stack (--call-graph dwarf). The caller decides; the walker asks once,
// at the first such sample, so the decision can depend on the recording's
// header (its architecture) and not on where the walker runs.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "analysis/dwarf_unwinder.h"
#include "format/session.h"

namespace sonde::analysis {

// Returns the unwinder for this recording, or nullptr to keep samples as
// recorded (their sampled address and kernel chain).
using UnwinderFactory = std::function<std::unique_ptr<DwarfUnwinder>(const format::Session&)>;

// Walks copied stacks with DWARF CFI, finding objects by build-id under
// `cache_root` ("" = the default cache). Only recordings of x86-64 (or
// without an ARCH feature, taken to be this machine's) are walked: the
// unwinder knows no other register map.
UnwinderFactory dwarf_unwinding(std::string cache_root);

// Never unwinds (readers that do not look at user frames).
UnwinderFactory no_unwinding();

}  // namespace sonde::analysis
