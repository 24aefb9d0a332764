// A miniature recorder for SDT tests: drives probe::SdtExtension the way
// `sonde record` does (fork the workload stopped before exec, prepare, map
// the extension's ring buffers, release the workload, drain, rewrite, stop)
// without depending on the recorder.
#pragma once

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "probe/sdt_extension.h"
#include "probe/sdt_note.h"

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
  std::vector<format::EventDesc> descs;  // the extension's attrs() (HEADER_ATTRs of the stream)
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
  // 1 MiB per CPU: a test's whole burst (2000 hits of sdt_many) fits even
  // when the draining thread is not scheduled on a loaded machine.
  explicit RingBuffer(int fd, size_t data_pages = 256);
  ~RingBuffer();
  // Calls f(record bytes) for every record available.
  void drain(const std::function<void(std::vector<uint8_t>&)>& f);

 private:
  void* base_ = nullptr;
  size_t size_ = 0, data_size_ = 0;
};

// Reads a T at `addr` of process `pid` through /proc/PID/mem (T{} when it
// cannot).
template <typename T>
T read_mem(pid_t pid, uint64_t addr) {
  T v{};
  int fd = ::open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY);
  if (fd >= 0) {
    if (::pread(fd, &v, sizeof v, static_cast<off_t>(addr)) != sizeof v) v = T{};
    ::close(fd);
  }
  return v;
}

// Where process `pid` mapped the start (file offset 0) of `path`; 0 if it
// does not map it.
uint64_t load_base(pid_t pid, const std::string& path);

// A running `PATH 1 loop` of the sdt_forms fixture (every probe fires every
// 10 ms, stdout to /dev/null), killed when destroyed. Tells whether probes
// are installed in it: each site's probe byte (0x90 nop, 0xcc int3) and
// semaphore, read through /proc/PID/mem.
class FormsTarget {
 public:
  explicit FormsTarget(const std::string& path);  // returns once it has mapped `path`
  ~FormsTarget();
  FormsTarget(const FormsTarget&) = delete;
  FormsTarget& operator=(const FormsTarget&) = delete;

  pid_t pid() const { return pid_; }
  const probe::SdtFile& file() const { return file_; }
  uint64_t base() const { return base_; }
  // In the note's site order.
  std::vector<int> probe_bytes() const;
  std::vector<int> nops() const { return std::vector<int>(file_.sites.size(), 0x90); }
  std::vector<int> int3s() const { return std::vector<int>(file_.sites.size(), 0xcc); }
  uint16_t semaphore(const std::string& probe_name) const;
  // Every semaphore of the file (sites that have one), in site order.
  std::vector<int> semaphores() const;
  // Polls for up to `seconds` until no probe is installed and every
  // semaphore is 0 (a link's release can outlive its process).
  bool wait_detached(double seconds) const;

 private:
  pid_t pid_ = -1;
  probe::SdtFile file_;
  uint64_t base_ = 0;
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
