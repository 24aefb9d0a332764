#include "analysis/resolver_thread.h"

namespace sonde::analysis {

ResolverThread::ResolverThread(SymbolResolver& resolver) : resolver_(resolver) {
  worker_ = std::thread([this] { work(); });
}

ResolverThread::~ResolverThread() {
  if (!worker_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_one();
  worker_.join();
}

void ResolverThread::add(const Frame& f, uint32_t pid) {
  // The worker is woken for the first frame of each object (so its symbol
  // table loads as early as possible) and otherwise once per kBatch frames:
  // a wake-up per frame would cost more than the lookups it saves.
  constexpr size_t kBatch = 256;
  bool first_of_object = false;
  if (f.map) {
    if (f.map->index >= seen_maps_.size()) seen_maps_.resize(f.map->index + 1, false);
    first_of_object = !seen_maps_[f.map->index];
    seen_maps_[f.map->index] = true;
  } else if (f.kernel) {
    first_of_object = !seen_kernel_;
    seen_kernel_ = true;
  }
  bool wake;
  {
    std::lock_guard lock(mu_);
    incoming_.push_back({f, pid});
    wake = idle_ && (first_of_object || incoming_.size() >= kBatch);
  }
  if (wake) wake_.notify_one();
}

void ResolverThread::work() {
  std::vector<Request> batch;
  try {
    for (;;) {
      {
        std::unique_lock lock(mu_);
        idle_ = true;
        idle_now_.notify_all();
        wake_.wait(lock, [&] { return stop_ || closing_ || !incoming_.empty(); });
        idle_ = false;
        if (stop_ || (incoming_.empty() && closing_)) {
          exited_ = true;  // mu_ is held here
          idle_now_.notify_all();
          return;
        }
        batch.swap(incoming_);
      }
      // Each location is queued once: nothing to remember per address.
      for (const Request& r : batch) results_.push_back(resolver_.resolve_once(r.frame, r.pid));
      batch.clear();
    }
  } catch (...) {
    failure_ = std::current_exception();
    exit_worker();
  }
}

// After a failure, outside the lock.
void ResolverThread::exit_worker() {
  std::lock_guard lock(mu_);
  exited_ = true;
  idle_now_.notify_all();
}

void ResolverThread::resolved_since(size_t from, std::vector<ResolvedSymbol>& out) {
  std::unique_lock lock(mu_);
  wake_.notify_one();
  idle_now_.wait(lock, [&] { return exited_ || (idle_ && incoming_.empty()); });
  if (failure_) std::rethrow_exception(failure_);
  // The worker waits on mu_ (held here), so results_ is stable.
  for (size_t i = from; i < results_.size(); ++i) out.push_back(results_[i]);
}

const std::vector<ResolvedSymbol>& ResolverThread::finish() {
  if (worker_.joinable()) {
    {
      std::lock_guard lock(mu_);
      closing_ = true;
    }
    wake_.notify_one();
    worker_.join();
  }
  if (failure_) std::rethrow_exception(failure_);
  return results_;
}

}  // namespace sonde::analysis
