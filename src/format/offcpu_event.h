// The off-CPU events as they appear in a recording (docs/format.md): software
// bpf-output attrs named `offcpu-time` (the thread was blocked: waiting for
// something) and `offcpu-time:preempt` (it was runnable: waiting for a CPU),
// whose samples' period is nanoseconds off CPU. Their names and kinds are in
// format/event_kind.h; readers ask an event's kind.
#pragma once

#include "format/event_kind.h"
