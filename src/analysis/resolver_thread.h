// Symbolization on a second thread, overlapped with walking the recording.
// A report spends its first milliseconds loading symbol tables (the
// kernel's 100K+ kallsyms entries, each sampled object's ELF tables) and the
// rest decoding samples; the two do not depend on each other until the end,
// when every location needs its name. So the walk queues each new location's
// frame here, a worker resolves it while the walk goes on, and finish()
// hands back one ResolvedSymbol per queued frame.
//
// The worker owns the SymbolResolver (and through it the Symbolizer) until
// finish() returns; the caller must not use either before then.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "analysis/frames.h"
#include "analysis/symbol_resolver.h"

namespace sonde::analysis {

class ResolverThread {
 public:
  explicit ResolverThread(SymbolResolver& resolver);
  ~ResolverThread();  // stops the worker without waiting for the queue
  ResolverThread(const ResolverThread&) = delete;
  ResolverThread& operator=(const ResolverThread&) = delete;

  // Queues frame `f` of process `pid`; its symbol is finish()'s next entry.
  // `f.map` must stay valid until finish() (AddressSpace keeps every
  // mapping for its lifetime).
  void add(const Frame& f, uint32_t pid);
  // Waits until every queued frame is resolved and returns the symbols in
  // the order the frames were added. Rethrows what the worker threw.
  const std::vector<ResolvedSymbol>& finish();
  // For a live reader (`sonde top`): waits until every frame queued so far
  // is resolved, then appends the symbols of frames [from, queued) to `out`;
  // the worker goes on afterwards. Rethrows what the worker threw.
  void resolved_since(size_t from, std::vector<ResolvedSymbol>& out);

 private:
  struct Request {
    Frame frame;
    uint32_t pid;
  };
  void work();
  void exit_worker();

  SymbolResolver& resolver_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable idle_now_;  // the worker went idle (for resolved_since)
  std::vector<Request> incoming_;  // guarded by mu_
  bool closing_ = false;           // guarded by mu_
  bool idle_ = false;              // guarded by mu_: the worker waits for work
  std::vector<bool> seen_maps_;    // the caller's: mappings already queued
  bool seen_kernel_ = false;       // the caller's
  bool stop_ = false;              // guarded by mu_
  bool exited_ = false;            // guarded by mu_: the worker returned
  std::exception_ptr failure_;     // written by the worker before it exits
  std::vector<ResolvedSymbol> results_;  // the worker's until finish()
  std::thread worker_;
};

}  // namespace sonde::analysis
