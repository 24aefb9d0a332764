#include "bpf/embedded_object.h"

#include <bpf/libbpf.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <mutex>

#include "util/error.h"

namespace sonde::bpf {

namespace {

std::mutex g_log_mu;
std::string g_log;  // the tail of libbpf's log, for the one-line error

int capture_log(enum libbpf_print_level level, const char* fmt, va_list ap) {
  if (level == LIBBPF_DEBUG) return 0;
  char buf[512];
  int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  std::lock_guard lk(g_log_mu);
  g_log += buf;
  if (g_log.size() > 4096) g_log.erase(0, g_log.size() - 4096);
  return n;
}

}  // namespace

std::string last_log_line() {
  std::lock_guard lk(g_log_mu);
  std::string s = g_log;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  size_t nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

bpf_object* open_embedded(std::span<const uint8_t> bytes, const char* name, std::string_view what) {
  libbpf_set_print(capture_log);
  {
    std::lock_guard lk(g_log_mu);
    g_log.clear();
  }
  LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = name);
  bpf_object* obj = bpf_object__open_mem(bytes.data(), bytes.size(), &opts);
  if (!obj) throw_runtime("{}: cannot open the embedded BPF program: {}", what, errno_text(errno));
  return obj;
}

void load_or_throw(bpf_object*& obj, std::string_view what) {
  if (bpf_object__load(obj) == 0) return;
  int err = errno;
  std::string why = last_log_line();
  bpf_object__close(obj);
  obj = nullptr;
  throw_runtime("{}: cannot load the BPF program ({}){}{}", what, errno_text(err), why.empty() ? "" : ": ", why);
}

int prog_fd(bpf_object* obj, const char* name) {
  bpf_program* p = bpf_object__find_program_by_name(obj, name);
  return p ? bpf_program__fd(p) : -1;
}

int map_fd(bpf_object* obj, const char* name) {
  bpf_map* m = bpf_object__find_map_by_name(obj, name);
  return m ? bpf_map__fd(m) : -1;
}

}  // namespace sonde::bpf
