// A miniature recorder for SDT tests: drives probe::SdtExtension the way
// `sonde record` does (fork the workload stopped before exec, prepare, map
// the extension's ring buffers, release the workload, drain, rewrite, stop)
// without depending on the recorder.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "probe/sdt_extension.h"

namespace sonde::test {

struct SdtHit {
  std::string name;  // "%provider:event"
  std::string args;  // " arg1=..." as sonde script prints it
  uint32_t pid = 0;
};

struct SdtRun {
  std::vector<SdtHit> hits;
  std::string out;  // the workload's stdout
  int exit_code = -1;
  size_t sites = 0;
  size_t links = 0;  // link fds after prepare(): one per object (multi) or one per site (perf-event)
  probe::SdtAttachRoute route = probe::SdtAttachRoute::Auto;  // the route prepare() took
  double attach_seconds = 0, detach_seconds = 0;
  // "name args" -> count
  std::map<std::string, size_t> counts() const;
  size_t count(const std::string& name) const;
};

struct SdtRunOptions {
  std::string cache_root;
  // Called once the workload runs, with its pid and the extension; may write
  // to the workload's stdin through `stdin_fd`.
  std::function<void(probe::SdtExtension&, pid_t pid, int stdin_fd, int stdout_fd)> during;
};

// Records `argv` with the SDT `specs`. Throws sonde::Error from prepare().
SdtRun sdt_record(const std::vector<std::string>& specs, const std::vector<std::string>& argv,
                  const SdtRunOptions& opts);

// Decodes the renamed samples of one ring buffer drain (exposed for reuse).
class RingBuffer {
 public:
  explicit RingBuffer(int fd, size_t data_pages = 64);
  ~RingBuffer();
  // Calls f(record bytes) for every record available.
  void drain(const std::function<void(std::vector<uint8_t>&)>& f);

 private:
  void* base_ = nullptr;
  size_t size_ = 0, data_size_ = 0;
};

// How many BPF link fds process `pid` (0: this one) holds.
size_t count_bpf_link_fds(pid_t pid = 0);

// Sets SONDE_SDT_ATTACH for the lifetime of the object ("" unsets it).
class ScopedSdtAttachRoute {
 public:
  explicit ScopedSdtAttachRoute(const std::string& route);
  ~ScopedSdtAttachRoute();
  ScopedSdtAttachRoute(const ScopedSdtAttachRoute&) = delete;
  ScopedSdtAttachRoute& operator=(const ScopedSdtAttachRoute&) = delete;
};

// The attach routes tests run under ("multi", "perf-event"), and a
// GoogleTest parameter name for each ("multi", "perf_event").
inline const char* const kSdtRoutes[] = {"multi", "perf-event"};
std::string sdt_route_test_name(const std::string& route);

}  // namespace sonde::test
