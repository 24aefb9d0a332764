#include "trace/arg_format.h"

#include <signal.h>

#include <cstring>
#include <initializer_list>
#include <utility>

#include <fmt/format.h>
#include "util/text_join.h"

namespace sonde::trace {

namespace {

struct Bit {
  uint64_t mask;
  const char* name;
};

// Names of the set bits, in the given order, then what is left in hex.
std::string bit_names(uint64_t v, std::initializer_list<Bit> bits, std::string out = "") {
  for (const auto& b : bits) {
    if ((v & b.mask) != b.mask) continue;
    append_separated(out, "|", b.name);
    v &= ~b.mask;
  }
  if (v) append_separated(out, "|", fmt::format("{:#x}", v));
  return out;
}

// perf's open_flags__scnprintf: RDONLY first when no access bit is set.
std::string open_flags(uint64_t v) {
  return bit_names(v,
                   {{02, "RDWR"}, {02000, "APPEND"}, {020000, "ASYNC"}, {02000000, "CLOEXEC"}, {0100, "CREAT"},
                    {040000, "DIRECT"}, {0200000, "DIRECTORY"}, {0200, "EXCL"}, {0100000, "LARGEFILE"},
                    {0400000, "NOFOLLOW"}, {020000000, "TMPFILE"}, {01000000, "NOATIME"}, {0400, "NOCTTY"},
                    {04000, "NONBLOCK"}, {010000000, "PATH"}, {04010000, "SYNC"}, {010000, "DSYNC"},
                    {01000, "TRUNC"}, {01, "WRONLY"}},
                   (v & 03) == 0 ? "RDONLY" : "");
}

std::string mmap_prot(uint64_t v) {
  if (v == 0) return "NONE";
  return bit_names(v, {{1, "READ"}, {2, "WRITE"}, {4, "EXEC"}, {8, "SEM"}, {0x01000000, "GROWSDOWN"},
                       {0x02000000, "GROWSUP"}});
}

std::string mmap_flags(uint64_t v) {
  return bit_names(v, {{3, "SHARED_VALIDATE"}, {1, "SHARED"}, {2, "PRIVATE"}, {0x10, "FIXED"}, {0x20, "ANONYMOUS"},
                       {0x40, "32BIT"}, {0x100, "GROWSDOWN"}, {0x800, "DENYWRITE"}, {0x1000, "EXECUTABLE"},
                       {0x2000, "LOCKED"}, {0x4000, "NORESERVE"}, {0x8000, "POPULATE"}, {0x10000, "NONBLOCK"},
                       {0x20000, "STACK"}, {0x40000, "HUGETLB"}, {0x80000, "SYNC"}, {0x100000, "FIXED_NOREPLACE"}});
}

std::string access_mode(uint64_t v) {
  if (v == 0) return "F";
  return bit_names(v, {{4, "R"}, {2, "W"}, {1, "X"}});
}

std::string signal_name(uint64_t v) {
  const char* abbrev = v < 65 ? ::sigabbrev_np(static_cast<int>(v)) : nullptr;
  if (abbrev) return abbrev;
  if (v >= static_cast<uint64_t>(SIGRTMIN) && v <= static_cast<uint64_t>(SIGRTMAX))
    return fmt::format("RTMIN+{}", v - SIGRTMIN);
  return fmt::format("{:#x}", v);
}

std::string from_table(uint64_t v, uint64_t first, std::initializer_list<const char*> names) {
  if (v >= first && v - first < names.size()) return names.begin()[v - first];
  return fmt::format("{}", static_cast<int64_t>(v));
}

bool is_signal_call(std::string_view sc) {
  for (const char* n : {"kill", "tkill", "tgkill", "rt_sigaction", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
                        "pidfd_send_signal"})
    if (sc == n) return true;
  return false;
}

// Arguments perf's syscall table prints in hex though their type is an integer.
bool hex_argument(std::string_view sc, std::string_view arg) {
  static const std::pair<const char*, const char*> kHex[] = {
      {"brk", "brk"},         {"arch_prctl", "arg2"}, {"mprotect", "start"}, {"pkey_mprotect", "start"},
      {"madvise", "start"},   {"mmap", "off"},        {"mincore", "start"},  {"msync", "start"},
      {"mlock", "start"},     {"munlock", "start"},   {"mlock2", "start"},   {"remap_file_pages", "start"}};
  for (const auto& [s, a] : kHex)
    if (sc == s && arg == a) return true;
  return false;
}

// perf's mode_t__scnprintf: file type, then the permission groups.
std::string mode_bits(uint64_t v) {
  return bit_names(v & 0xffffffff,
                   {{0140000, "IFSOCK"}, {0120000, "IFLNK"}, {0100000, "IFREG"}, {060000, "IFBLK"}, {040000, "IFDIR"},
                    {020000, "IFCHR"}, {010000, "IFIFO"}, {04000, "ISUID"}, {02000, "ISGID"}, {01000, "ISVTX"},
                    {0700, "IRWXU"}, {0400, "IRUSR"}, {0200, "IWUSR"}, {0100, "IXUSR"}, {070, "IRWXG"},
                    {040, "IRGRP"}, {020, "IWGRP"}, {010, "IXGRP"}, {07, "IRWXO"}, {04, "IROTH"}, {02, "IWOTH"},
                    {01, "IXOTH"}});
}

// A decoder chosen by (syscall, argument name); "" when there is none.
std::string decode_known(std::string_view sc, std::string_view arg, uint64_t v) {
  const bool is_open = sc == "open" || sc == "openat" || sc == "openat2";
  if (is_open && arg == "flags") return open_flags(v);
  if ((sc == "mmap" || sc == "mprotect" || sc == "pkey_mprotect") && arg == "prot") return mmap_prot(v);
  if (sc == "mmap" && arg == "flags") return mmap_flags(v);
  if ((sc == "access" || sc == "faccessat" || sc == "faccessat2") && arg == "mode") return access_mode(v);
  if (arg == "sig" && is_signal_call(sc)) return signal_name(v);
  if (hex_argument(sc, arg)) return fmt::format("{:#x}", v);
  if (arg == "mode" && (sc == "open" || sc == "openat" || sc == "creat" || sc == "mkdir" || sc == "mkdirat" ||
                        sc == "chmod" || sc == "fchmod" || sc == "fchmodat" || sc == "mknod" || sc == "mknodat"))
    return mode_bits(v);
  if (arg == "dfd" || arg == "olddfd" || arg == "newdfd")
    return static_cast<int32_t>(v) == -100 ? "CWD" : fmt::format("{}", static_cast<int32_t>(v));
  if (sc == "arch_prctl" && arg == "option")
    return v >= 0x1011 ? from_table(v, 0x1011, {"GET_CPUID", "SET_CPUID"})
                       : from_table(v, 0x1001, {"SET_GS", "SET_FS", "GET_FS", "GET_GS"});
  if ((sc == "prlimit64" || sc == "getrlimit" || sc == "setrlimit") && arg == "resource")
    return from_table(v, 0, {"CPU", "FSIZE", "DATA", "STACK", "CORE", "RSS", "NPROC", "NOFILE", "MEMLOCK", "AS",
                             "LOCKS", "SIGPENDING", "MSGQUEUE", "NICE", "RTPRIO", "RTTIME"});
  if (sc == "getrandom" && arg == "flags") return bit_names(v, {{1, "NONBLOCK"}, {2, "RANDOM"}, {4, "INSECURE"}});
  if ((sc == "rt_sigprocmask" || sc == "sigprocmask") && arg == "how")
    return from_table(v, 0, {"BLOCK", "UNBLOCK", "SETMASK"});
  if (arg == "which_clock" || (sc.starts_with("clock_") && arg == "clockid"))
    return from_table(v, 0, {"REALTIME", "MONOTONIC", "PROCESS_CPUTIME_ID", "THREAD_CPUTIME_ID", "MONOTONIC_RAW",
                             "REALTIME_COARSE", "MONOTONIC_COARSE", "BOOTTIME"});
  return "";
}

// Arguments perf prints even when zero (an enumeration whose first name is 0).
bool shown_when_zero(std::string_view sc, std::string_view arg) {
  return ((sc == "access" || sc == "faccessat") && arg == "mode") ||
         ((sc == "prlimit64" || sc == "getrlimit" || sc == "setrlimit") && arg == "resource") ||
         ((sc == "rt_sigprocmask") && arg == "how") || arg == "which_clock";
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// perf's choice by the argument's declared type and name (syscall__set_arg_fmts).
std::string format_by_type(const SyscallArg& a, uint64_t v, const CommLookup& comm) {
  if (a.type == "const char *" && (ends_with(a.name, "name") || a.name.find("path") != std::string::npos))
    return fmt::format("{:#x}", static_cast<uint32_t>(v));  // perf's SCA_FILENAME without the string
  if (a.pointer || a.name.find("addr") != std::string::npos) return fmt::format("{:#x}", v);
  if (a.type == "pid_t") {
    auto pid = static_cast<int32_t>(v);
    std::string_view c = pid > 0 ? comm(static_cast<uint32_t>(pid)) : std::string_view{};
    return c.empty() ? fmt::format("{}", pid) : fmt::format("{} ({})", pid, c);
  }
  if (a.type == "umode_t") return fmt::format("{:#o}", v);
  if ((a.type == "int" || a.type == "unsigned int" || a.type == "long") && ends_with(a.name, "fd"))
    return fmt::format("{}", static_cast<int32_t>(v));
  return fmt::format("{}", static_cast<int64_t>(v));
}

const char* const kHexReturns[] = {"brk", "mmap", "mremap", "shmat"};
const char* const kPidReturns[] = {"clone", "clone3", "fork", "vfork", "getpid", "getppid", "gettid",
                                   "set_tid_address", "wait4", "waitid", "getpgid", "getsid"};
const char* const kTimeoutCalls[] = {"poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait",
                                     "epoll_pwait2", "rt_sigtimedwait", "semtimedop"};

bool listed(std::string_view sc, const auto& list) {
  for (const char* n : list)
    if (sc == n) return true;
  return false;
}

}  // namespace

std::string errno_name(int e) {
  const char* n = ::strerrorname_np(e);
  return n ? n : fmt::format("E{}", e);
}

std::string errno_text(int e) {
  const char* d = ::strerrordesc_np(e);
  return d ? d : fmt::format("Unknown error {}", e);
}

bool is_fd_argument(const SyscallSignature& sig, size_t i) {
  if (!sig.described || i >= sig.args.size()) return false;
  const SyscallArg& a = sig.args[i];
  return (a.type == "int" || a.type == "unsigned int" || a.type == "long") && ends_with(a.name, "fd");
}

std::string format_args(const SyscallSignature& sig, const uint64_t (&args)[6], const CommLookup& comm,
                        const ArgStrings* strings, const FdLookup& fd_path) {
  std::string out;
  const bool is_open = sig.name == "open" || sig.name == "openat";
  const size_t n = sig.described ? std::min<size_t>(sig.args.size(), 6) : 6;
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = args[i];
    std::string name = sig.described ? sig.args[i].name : fmt::format("arg{}", i);
    if (v == 0 && !shown_when_zero(sig.name, name)) continue;
    // perf masks open's mode unless O_CREAT (or O_TMPFILE) asks for one;
    // flags of 0 are not printed, and then nothing masks it.
    if (is_open && name == "mode" && i > 0 && args[i - 1] && !(args[i - 1] & (0100 | 020000000))) continue;
    // An anonymous mapping ignores its fd and offset: perf masks them.
    if (sig.name == "mmap" && (name == "fd" || name == "off") && i >= 2 && (args[3] & 0x20)) continue;
    if (strings && (strings->present & (1u << i))) {
      out += fmt::format("{}{}: \"{}\"", out.empty() ? "" : ", ", name, strings->text[i]);
      continue;
    }
    std::string value = decode_known(sig.name, name, v);
    if (value.empty()) value = sig.described ? format_by_type(sig.args[i], v, comm) : fmt::format("{:#x}", v);
    if (fd_path && value != "CWD" && is_fd_argument(sig, i))
      if (const std::string* path = fd_path(static_cast<int32_t>(v))) value += fmt::format("<{}>", *path);
    out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", name, value);
  }
  return out;
}

std::string format_return(std::string_view sc, int64_t ret, const CommLookup& comm) {
  if (ret < 0) {
    int e = static_cast<int>(-ret);
    return fmt::format("-1 {} ({})", errno_name(e), errno_text(e));
  }
  if (ret == 0 && listed(sc, kTimeoutCalls)) return "0 (Timeout)";
  if (listed(sc, kHexReturns)) return fmt::format("{:#x}", static_cast<uint64_t>(ret));
  if (listed(sc, kPidReturns) && ret > 0) {
    std::string_view c = comm(static_cast<uint32_t>(ret));
    if (!c.empty()) return fmt::format("{} ({})", ret, c);
  }
  return fmt::format("{}", ret);
}

}  // namespace sonde::trace
