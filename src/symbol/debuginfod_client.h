// Objects and debug files by build-id from debuginfod servers
// (DEBUGINFOD_URLS), through libdebuginfod (dlopen'ed on first use).
//
// libdebuginfod reads its settings (timeout, retries) from the environment
// on every query; sonde's defaults for them are set by the CLI before any
// thread starts (kernel/process_environment.h), never here. The first
// failure that is not "not on the server" adds one note and turns the
// client off for the rest of the run.
#pragma once

#include <memory>
#include <string>
#include <unordered_set>

#include "elf/build_id.h"
#include "elf/elf_file.h"
#include "symbol/note_list.h"

struct debuginfod_client;

namespace sonde {

struct DebuginfodLibrary;

class DebuginfodClient {
 public:
  // Off (no lookups) unless `enabled` and DEBUGINFOD_URLS is set.
  DebuginfodClient(bool enabled, NoteList& notes);
  ~DebuginfodClient();
  DebuginfodClient(const DebuginfodClient&) = delete;
  DebuginfodClient& operator=(const DebuginfodClient&) = delete;

  // The debuginfo (or, with `executable`, the object itself) of `id`,
  // opened and checked to carry `id`; nullptr otherwise.
  std::unique_ptr<ElfFile> find(const BuildId& id, bool executable);

 private:
  debuginfod_client* client();

  NoteList& notes_;
  bool enabled_ = false;
  std::string urls_;
  bool started_ = false;
  bool dead_ = false;
  const DebuginfodLibrary* lib_ = nullptr;
  debuginfod_client* client_ = nullptr;
  std::unordered_set<BuildId, BuildIdHash> missing_;  // executables the servers do not have
};

}  // namespace sonde
