#include "probe/sdt_harness.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "format/uapi/perf_event.h"
#include "probe/sdt_format.h"
#include "support/test_support.h"
#include "util/error.h"

namespace sonde::test {

std::map<std::string, size_t> SdtRun::counts() const {
  std::map<std::string, size_t> m;
  for (const auto& h : hits) ++m[h.name + h.args];
  return m;
}

size_t SdtRun::count(const std::string& name) const {
  size_t n = 0;
  for (const auto& h : hits) n += h.name == name;
  return n;
}

RingBuffer::RingBuffer(int fd, size_t data_pages) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  data_size_ = data_pages * page;
  size_ = data_size_ + page;
  base_ = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base_ == MAP_FAILED) {
    base_ = nullptr;
    throw_runtime("mmap ring: {}", errno_text(errno));
  }
}

RingBuffer::~RingBuffer() {
  if (base_) munmap(base_, size_);
}

void RingBuffer::drain(const std::function<void(std::vector<uint8_t>&)>& f) {
  auto* meta = static_cast<perf_event_mmap_page*>(base_);
  const uint8_t* data = static_cast<const uint8_t*>(base_) + meta->data_offset;
  uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = meta->data_tail;
  while (tail < head) {
    perf_event_header h;
    for (size_t i = 0; i < sizeof h; ++i) reinterpret_cast<uint8_t*>(&h)[i] = data[(tail + i) % data_size_];
    if (h.size < sizeof h) break;
    std::vector<uint8_t> rec(h.size);
    for (size_t i = 0; i < h.size; ++i) rec[i] = data[(tail + i) % data_size_];
    f(rec);
    tail += h.size;
  }
  __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

size_t count_bpf_link_fds(pid_t pid) {
  std::string dir = pid ? "/proc/" + std::to_string(pid) + "/fd" : "/proc/self/fd";
  size_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    char buf[256] = {};
    ssize_t len = readlink(e.path().c_str(), buf, sizeof buf - 1);
    if (len > 0 && std::string(buf, static_cast<size_t>(len)) == "anon_inode:bpf_link") ++n;
  }
  return n;
}

uint64_t load_base(pid_t pid, const std::string& path) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(path) == std::string::npos) continue;
    std::istringstream ls(line);
    std::string range, perms, off;
    ls >> range >> perms >> off;
    if (std::stoull(off, nullptr, 16) == 0) return std::stoull(range.substr(0, range.find('-')), nullptr, 16);
  }
  return 0;
}

FormsTarget::FormsTarget(const std::string& path) : file_(probe::scan_sdt_file(path)) {
  pid_ = fork();
  if (pid_ == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    execl(path.c_str(), "forms", "1", "loop", nullptr);
    _exit(127);
  }
  wait_until([&] { return (base_ = load_base(pid_, path)) != 0; }, std::chrono::seconds(2));
  if (!base_) throw_runtime("{} did not start", path);
}

FormsTarget::~FormsTarget() {
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
}

std::vector<int> FormsTarget::probe_bytes() const {
  std::vector<int> b;
  for (const auto& s : file_.sites) b.push_back(read_mem<uint8_t>(pid_, base_ + s.pc));
  return b;
}

uint16_t FormsTarget::semaphore(const std::string& probe_name) const {
  for (const auto& s : file_.sites)
    if (s.name == probe_name && s.semaphore) return read_mem<uint16_t>(pid_, base_ + s.semaphore);
  throw_runtime("no semaphore for {}", probe_name);
}

std::vector<int> FormsTarget::semaphores() const {
  std::vector<int> v;
  for (const auto& s : file_.sites)
    if (s.semaphore) v.push_back(read_mem<uint16_t>(pid_, base_ + s.semaphore));
  return v;
}

bool FormsTarget::wait_detached(double seconds) const {
  return wait_until(
      [&] {
        auto sems = semaphores();
        return probe_bytes() == nops() && sems == std::vector<int>(sems.size(), 0);
      },
      std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000)));
}

ScopedSdtAttachRoute::ScopedSdtAttachRoute(const std::string& route) {
  if (route.empty()) unsetenv("SONDE_SDT_ATTACH");
  else setenv("SONDE_SDT_ATTACH", route.c_str(), 1);
}

ScopedSdtAttachRoute::~ScopedSdtAttachRoute() { unsetenv("SONDE_SDT_ATTACH"); }

std::string sdt_route_test_name(const std::string& route) {
  std::string n = route;
  for (char& c : n)
    if (c == '-') c = '_';
  return n;
}

SdtRun sdt_record(const std::vector<std::string>& specs, const std::vector<std::string>& argv,
                  const SdtRunOptions& opts) {
  SdtRun run;
  probe::SdtExtension ext(specs, opts.cache_root);
  int go[2], in[2], out[2];
  if (pipe2(go, O_CLOEXEC) != 0 || pipe(in) != 0 || pipe(out) != 0) throw_runtime("pipe");
  pid_t child = fork();
  if (child == 0) {
    close(go[1]);
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[1]);
    close(out[0]);
    char c;
    if (read(go[0], &c, 1) != 1) _exit(127);  // the parent gave up
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(go[0]);
  close(in[0]);
  close(out[1]);
  auto reap = [&] {
    close(go[1]);
    int st = 0;
    waitpid(child, &st, 0);
    return st;
  };

  record::RecordTarget target;
  target.pids = {child};
  target.workload_pid = child;
  target.command_path = argv[0];
  for (long c = 0, n = sysconf(_SC_NPROCESSORS_ONLN); c < n; ++c) target.cpus.push_back(static_cast<int>(c));
  perf_event_attr base{};
  base.size = sizeof base;
  base.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
  base.sample_id_all = 1;
  try {
    ext.prepare(target, base);
  } catch (...) {
    close(in[1]);
    close(out[0]);
    reap();
    throw;
  }
  run.sites = ext.sites().size();
  run.links = ext.link_count();
  run.route = ext.route();
  run.attach_seconds = ext.attach_seconds();
  run.descs = ext.attrs();
  const std::vector<format::EventDesc>& descs = run.descs;
  std::vector<std::unique_ptr<RingBuffer>> rings;
  for (int fd : ext.ring_fds()) rings.push_back(std::make_unique<RingBuffer>(fd));

  auto drain_all = [&] {
    for (auto& r : rings)
      r->drain([&](std::vector<uint8_t>& rec) {
        if (load<uint32_t>(rec.data()) != PERF_RECORD_SAMPLE) return;
        if (!ext.rewrite_sample(rec)) return;
        uint64_t id = load<uint64_t>(rec.data() + 8);
        SdtHit h;
        for (const auto& d : descs)
          if (!d.ids.empty() && d.ids[0] == id) h.name = d.name;
        h.pid = load<uint32_t>(rec.data() + 16);
        // IDENTIFIER TID TIME CPU PERIOD, then RAW: u32 size at 48.
        uint32_t size = load<uint32_t>(rec.data() + 48);
        auto a = probe::format_sdt_raw(std::span<const uint8_t>(rec.data() + 52, size));
        h.args = a ? *a : "<undecodable>";
        run.hits.push_back(std::move(h));
      });
  };

  if (write(go[1], "g", 1) != 1) throw_runtime("cannot start the workload");
  if (opts.during) opts.during(ext, child, in[1], out[0]);
  close(in[1]);
  // Drain while the workload runs, then once more after it exits.
  int status = 0;
  wait_until([&] {
    drain_all();
    return waitpid(child, &status, WNOHANG) == child;
  });
  close(go[1]);
  drain_all();
  char buf[4096];
  ssize_t n;
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  while ((n = read(out[0], buf, sizeof buf)) > 0) run.out.append(buf, static_cast<size_t>(n));
  close(out[0]);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  ext.stop();
  run.detach_seconds = ext.detach_seconds();
  return run;
}

}  // namespace sonde::test
