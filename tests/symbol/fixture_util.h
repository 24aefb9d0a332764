// Helpers shared by the elf, cache and symbol tests: facts about fixture
// binaries from independent tools (nm, readelf, objcopy), never from sonde's
// own ELF code, so the tests compare sonde against binutils.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "support/test_support.h"

namespace sonde::test {

struct NmSymbol {
  uint64_t addr = 0;
  uint64_t size = 0;
  char type = 0;
};

// Defined symbols with sizes, by name (nm -S).
inline std::map<std::string, NmSymbol> nm_symbols(const std::string& bin) {
  std::map<std::string, NmSymbol> out;
  auto r = sh("nm -S --defined-only '" + bin + "'");
  for (const auto& line : lines(r.out)) {
    std::istringstream in(line);
    std::string a, s, t, n;
    if (!(in >> a >> s >> t >> n)) continue;
    out[n] = NmSymbol{std::stoull(a, nullptr, 16), std::stoull(s, nullptr, 16), t[0]};
  }
  return out;
}

// File offset of a virtual address, from readelf's PT_LOAD table.
inline uint64_t file_offset_of(const std::string& bin, uint64_t vaddr) {
  auto r = sh("readelf -lW '" + bin + "' | awk '$1==\"LOAD\"{print $2, $3, $5}'");
  for (const auto& line : lines(r.out)) {
    std::istringstream in(line);
    std::string off, va, filesz;
    in >> off >> va >> filesz;
    uint64_t o = std::stoull(off, nullptr, 16), v = std::stoull(va, nullptr, 16), f = std::stoull(filesz, nullptr, 16);
    if (vaddr >= v && vaddr < v + f) return o + (vaddr - v);
  }
  ADD_FAILURE() << "no PT_LOAD covers 0x" << std::hex << vaddr << " in " << bin;
  return 0;
}

inline std::string build_id_of(const std::string& bin) {
  auto r = sh("readelf -n '" + bin + "' | awk '/Build ID/{print $3}'");
  std::string s = r.out;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Compiles a fixture; C++ sources are compiled as C++ by gcc.
inline bool build_fixture(const std::string& src, const std::string& out, const std::string& flags = "") {
  return compile_fixture(src, out, flags);
}

// Splits `bin` like Debian's dh_strip: a stripped binary and a debug file at
// DEBUG_ROOT/.build-id/XX/REST.debug.
inline bool split_debug(const std::string& bin, const std::string& debug_root) {
  std::string id = build_id_of(bin);
  std::string dir = debug_root + "/.build-id/" + id.substr(0, 2);
  auto r = sh("set -e; mkdir -p '" + dir + "'; objcopy --only-keep-debug '" + bin + "' '" + dir + "/" + id.substr(2) +
              ".debug'; strip --strip-all '" + bin + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0;
}

// Builds MiniDebugInfo like Fedora's find-debuginfo: the function symbols
// missing from .dynsym, xz-compressed into .gnu_debugdata of the stripped
// binary.
inline bool add_minidebuginfo(const std::string& bin, const std::string& work) {
  std::string b = "'" + bin + "'", w = "'" + work + "'";
  auto r = sh("set -e; cd " + w + "; "
              "nm -D " + b + " --format=posix --defined-only | awk '{ print $1 }' | sort > dynsyms; "
              "nm " + b + " --format=posix --defined-only | awk '{ if ($2 == \"T\" || $2 == \"t\" || $2 == \"D\") print $1 }' | sort > funcsyms; "
              "comm -13 dynsyms funcsyms > keep_symbols; "
              "objcopy --only-keep-debug " + b + " debug; "
              "objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep_symbols debug mini_debuginfo; "
              "rm -f mini_debuginfo.xz; xz mini_debuginfo; "
              "strip --strip-all -R .comment " + b + "; "
              "objcopy --add-section .gnu_debugdata=mini_debuginfo.xz " + b);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0;
}

// A fixture run inside a chroot (a container's view of paths), killed and
// reaped when this goes out of scope. `running()` waits until the child
// runs `host_path` (the binary as seen from here: ROOTFS/PATH).
class ChrootedProcess {
 public:
  ChrootedProcess(const std::string& rootfs, const std::string& path, const std::string& host_path)
      : host_path_(host_path) {
    pid_ = fork();
    if (pid_ == 0) {
      execlp("chroot", "chroot", rootfs.c_str(), path.c_str(), "4000000000", static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~ChrootedProcess() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  ChrootedProcess(const ChrootedProcess&) = delete;
  ChrootedProcess& operator=(const ChrootedProcess&) = delete;
  pid_t pid() const { return pid_; }
  bool running() const {
    return test::wait_until(
        [&] {
          std::error_code ec;
          return std::filesystem::read_symlink("/proc/" + std::to_string(pid_) + "/exe", ec).string() == host_path_;
        },
        std::chrono::seconds(5));
  }

 private:
  pid_t pid_ = -1;
  std::string host_path_;
};

}  // namespace sonde::test
