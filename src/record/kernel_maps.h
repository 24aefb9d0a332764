// The kernel image and its modules as perf sees them: MMAP2 records with
// pid -1 and cpumode kernel, `[kernel.kallsyms]_text` at the address of
// _text, one `[module]` map per loaded module; build-ids from
// /sys/kernel/notes and /sys/module/NAME/notes/.note.gnu.build-id.
#pragma once

#include "record/synth_context.h"

namespace sonde::record {

void synthesize_kernel_maps(const SynthContext& ctx);

}  // namespace sonde::record
