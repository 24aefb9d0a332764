#include "kernel/perf_event.h"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "util/error.h"

namespace sonde::kernel {

namespace {

int sys_perf_event_open(perf_event_attr& attr, pid_t pid, int cpu, int group_fd, unsigned long flags) {
  return static_cast<int>(::syscall(SYS_perf_event_open, &attr, pid, cpu, group_fd, flags));
}

bool zero_from(const perf_event_attr& attr, uint32_t offset) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(&attr);
  for (size_t i = offset; i < sizeof attr; ++i)
    if (bytes[i] != 0) return false;
  return true;
}

}  // namespace

int perf_event_open_sized(perf_event_attr& attr, pid_t pid, int cpu, int group_fd, unsigned long flags) {
  const uint32_t asked = attr.size;
  int fd = sys_perf_event_open(attr, pid, cpu, group_fd, flags);
  if (fd >= 0 || errno != E2BIG) return fd;
  const uint32_t kernel_size = attr.size;  // written back by the kernel
  if (kernel_size < kPerfAttrSizeVer0 || kernel_size >= asked || !zero_from(attr, kernel_size)) {
    errno = E2BIG;  // attr.size stays the kernel's, for the message
    return -1;
  }
  return sys_perf_event_open(attr, pid, cpu, group_fd, flags);
}

bool has_cpu_pmu() {
  struct stat st{};
  return ::stat("/sys/bus/event_source/devices/cpu", &st) == 0 ||
         ::stat("/sys/bus/event_source/devices/cpu_core", &st) == 0;
}

UniqueFd open_event(perf_event_attr& attr, pid_t pid, int cpu, const std::string& name) {
  int fd = perf_event_open_sized(attr, pid, cpu, -1, kPerfFlagFdCloexec);
  if (fd >= 0) return UniqueFd(fd);
  int err = errno;
  bool hw = attr.type == PERF_TYPE_HARDWARE || attr.type == PERF_TYPE_HW_CACHE;
  if (hw && (err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EINVAL)) {
    if (!has_cpu_pmu()) throw_runtime("event '{}' is not supported on this machine (no hardware PMU)", name);
    throw_runtime("event '{}' is not supported on this machine: {}", name, errno_text(err));
  }
  if (err == ESRCH) throw_runtime("process {} does not exist (or has exited)", pid);
  if (err == EACCES || err == EPERM)
    throw_runtime("no permission to open event '{}' (see /proc/sys/kernel/perf_event_paranoid): {}", name,
                  errno_text(err));
  if (err == EMFILE) throw_runtime("too many open files opening event '{}' (raise ulimit -n)", name);
  if (err == E2BIG)
    throw_runtime("event '{}' sets a field this kernel does not have (its perf_event_attr has {} bytes, sonde's {})",
                  name, attr.size, sizeof attr);
  throw_runtime("cannot open event '{}' on cpu {}: {}", name, cpu, errno_text(err));
}

uint64_t event_id(int fd) {
  uint64_t id = 0;
  if (::ioctl(fd, kPerfEventIocId, &id) != 0) throw_runtime("cannot read the event id: {}", errno_text(errno));
  return id;
}

bool kernel_supports_clockid(int32_t clockid) {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_DUMMY;
  a.disabled = 1;
  a.exclude_kernel = 1;
  a.use_clockid = 1;
  a.clockid = clockid;
  int fd = perf_event_open_sized(a, 0, -1, -1, kPerfFlagFdCloexec);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

bool kernel_supports_build_id() {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_DUMMY;
  a.disabled = 1;
  a.mmap2 = 1;
  a.build_id = 1;
  a.exclude_kernel = 1;
  int fd = perf_event_open_sized(a, 0, -1, -1, kPerfFlagFdCloexec);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

}  // namespace sonde::kernel
