// State that existed before recording started, read from /proc and written
// as the records the kernel would have sent: COMM and FORK for each thread,
// MMAP2 (build-id form where the file has one) for each executable mapping.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "record/synth_context.h"

namespace sonde::record {

// COMM for one thread.
void synthesize_comm(const SynthContext& ctx, pid_t pid, pid_t tid, const std::string& comm);

// One process: COMM for the leader, FORK+COMM for its other threads, MMAP2
// for its executable mappings. A process that vanished meanwhile is skipped.
void synthesize_process(const SynthContext& ctx, pid_t pid);

// Every process in /proc (system-wide recording).
void synthesize_all_processes(const SynthContext& ctx);

// The thread ids of a process (/proc/PID/task); empty if it does not exist.
std::vector<pid_t> list_threads(pid_t pid);

}  // namespace sonde::record
