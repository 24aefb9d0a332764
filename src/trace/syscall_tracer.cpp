#include "trace/syscall_tracer.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "trace/syscall_table.h"

namespace sonde::trace {

namespace {

// Columns from the call's name to the `=` of its return value (perf's
// args_alignment).
constexpr size_t kArgsAlignment = 70;

bool never_returns(std::string_view name) { return name == "exit" || name == "exit_group"; }

// "name(args" → "name(args)", padded to the `=` column, and "= ".
std::string closed_call(const std::string& body) {
  const size_t used = body.size() + 1;  // with the closing ')'
  const size_t pad = std::max<size_t>(used < kArgsAlignment ? kArgsAlignment - used : 0, 1);
  return fmt::format("{}){:{}}= ", body, "", pad);
}

void update(CallStats& s, uint64_t duration_ns, bool failed) {
  ++s.calls;
  if (failed) ++s.errors;
  s.total_ns += duration_ns;
  s.min_ns = std::min(s.min_ns, duration_ns);
  s.max_ns = std::max(s.max_ns, duration_ns);
  double delta = static_cast<double>(duration_ns) - s.mean;
  s.mean += delta / static_cast<double>(s.calls);
  s.m2 += delta * (static_cast<double>(duration_ns) - s.mean);
}

}  // namespace

SyscallTracer::SyscallTracer(TracerOptions options, SyscallSignatures& signatures, std::FILE* out, CommLookup comm)
    : options_(std::move(options)),
      signatures_(signatures),
      out_(out),
      comm_(std::move(comm)),
      fds_(options_.live ? "/proc" : "") {
  std::sort(options_.syscalls.begin(), options_.syscalls.end());
}

SyscallTracer::ThreadState& SyscallTracer::thread(uint32_t pid, uint32_t tid) {
  auto [it, fresh] = threads_.try_emplace(tid);
  ThreadState& t = it->second;
  if (fresh) {
    t.order = threads_.size();
    t.stats.tid = tid;
  }
  t.stats.pid = pid;
  return t;
}

bool SyscallTracer::selected(uint64_t nr) const {
  return options_.syscalls.empty() || std::binary_search(options_.syscalls.begin(), options_.syscalls.end(), nr);
}

// "     0.068 ( 0.012 ms): cat/6791 " — perf's trace__fprintf_entry_head.
std::string SyscallTracer::head(const ThreadState& t, uint64_t time, std::optional<uint64_t> duration) const {
  std::string out = time ? fmt::format("{:10.3f} ", static_cast<double>(relative(time)) / 1e6) : "         ? ";
  out += duration ? fmt::format("({:6.3f} ms): ", static_cast<double>(*duration) / 1e6) : "(         ): ";
  out += fmt::format("{:.14}/{} ", comm_(t.stats.tid), t.stats.tid);
  return out;
}

void SyscallTracer::print(const std::string& line) {
  if (done()) return;
  std::fwrite(line.data(), 1, line.size(), out_);
  ++printed_;
}

void SyscallTracer::on_enter(uint32_t pid, uint32_t tid, uint64_t time, uint64_t nr, const uint64_t (&args)[6]) {
  if (!have_base_) base_time_ = time, have_base_ = true;
  ++events_;
  ThreadState& t = thread(pid, tid);
  ++t.stats.events;
  if (!selected(nr)) return;
  t.pending.active = true;
  t.pending.nr = nr;
  t.pending.time = time;
  std::copy(std::begin(args), std::end(args), t.pending.args);
  t.pending.strings = {};
  if (t.early_nr == nr) std::swap(t.pending.strings, t.early);
  t.early_nr = UINT64_MAX;
  const SyscallSignature& sig = signatures_.get(static_cast<uint32_t>(nr));
  // perf reads a descriptor's path when the call enters: a close has not
  // closed it yet.
  if (options_.lines)
    for (size_t i = 0; i < 6; ++i)
      if (is_fd_argument(sig, i)) fds_.find(pid, static_cast<int32_t>(args[i]));
  if (!never_returns(sig.name)) return;
  // exit_group does not return: perf prints it when it is entered.
  if (!options_.lines || options_.min_duration_ns || options_.failures_only) return;
  print(head(t, time, std::nullopt) + closed_call(call_text(sig, pid, t.pending)) + "?\n");
  t.pending.active = false;
}

void SyscallTracer::on_exit(uint32_t pid, uint32_t tid, uint64_t time, uint64_t nr, int64_t ret) {
  if (!have_base_) base_time_ = time, have_base_ = true;
  ++events_;
  ThreadState& t = thread(pid, tid);
  ++t.stats.events;
  if (!selected(nr)) return;
  const bool entered = t.pending.active && t.pending.nr == nr;
  t.pending.active = false;
  const uint64_t entry_time = entered ? t.pending.time : 0;
  const uint64_t duration = entered && time > entry_time ? time - entry_time : 0;
  update(t.stats.calls[static_cast<uint32_t>(nr)], duration, ret < 0);
  if (!options_.lines) return;
  const SyscallSignature& sig = signatures_.get(static_cast<uint32_t>(nr));
  const bool shown = !(options_.min_duration_ns && (!entered || duration < options_.min_duration_ns)) &&
                     !(options_.failures_only && ret >= 0);
  if (shown) {
    std::string body = entered ? call_text(sig, pid, t.pending) : " ... [continued]: " + sig.name + "()";
    std::string line = head(t, entry_time, entered ? std::optional<uint64_t>(duration) : std::nullopt);
    print(line + closed_call(body) + format_return(sig.name, ret, comm_) + "\n");
  }
  // Also for calls not shown: a close filtered out still closes.
  if (entered) learn_descriptors(sig, pid, t.pending, ret);
}

// "name(args" of a call, descriptors with their paths.
std::string SyscallTracer::call_text(const SyscallSignature& sig, uint32_t pid, const Pending& call) {
  FdLookup fd_path = [&](int64_t fd) { return fds_.find(pid, fd); };
  return sig.name + "(" + format_args(sig, call.args, comm_, &call.strings, fd_path);
}

// What a returned call tells about the process's descriptors: an open's
// path, a dup's copy, a close.
void SyscallTracer::learn_descriptors(const SyscallSignature& sig, uint32_t pid, const Pending& call, int64_t ret) {
  const std::string& name = sig.name;
  if (name == "close") return fds_.closed(pid, static_cast<int32_t>(call.args[0]));
  if (ret < 0) return;
  if (name == "dup" || name == "dup2" || name == "dup3")
    return fds_.duplicated(pid, static_cast<int32_t>(call.args[0]), ret);
  if (name != "open" && name != "openat" && name != "openat2" && name != "creat") return;
  for (size_t i = 0; i < sig.args.size() && i < 6; ++i)
    if ((sig.args[i].name == "filename" || sig.args[i].name == "pathname") && (call.strings.present & (1u << i)))
      return fds_.opened(pid, ret, call.strings.text[i]);
  fds_.opened(pid, ret, "");  // the path was not read: /proc tells, while live
}

void SyscallTracer::on_string(uint32_t tid, uint64_t time, uint64_t nr, uint32_t arg, std::string_view text) {
  // A sample like the others: perf trace -i starts its clock at the first of any event.
  if (!have_base_) base_time_ = time, have_base_ = true;
  if (arg >= 6) return;
  auto it = threads_.find(tid);
  ThreadState* t = it == threads_.end() ? nullptr : &it->second;
  ArgStrings* into = nullptr;
  if (t && t->pending.active && t->pending.nr == nr && !(t->pending.strings.present & (1u << arg))) {
    into = &t->pending.strings;
  } else {
    if (!t) t = &thread(tid, tid);
    if (t->early_nr != nr) t->early = {}, t->early_nr = nr;
    into = &t->early;
  }
  into->text[arg] = std::string(text);
  into->present |= static_cast<uint8_t>(1u << arg);
}

std::vector<const ThreadStats*> SyscallTracer::threads() const {
  std::vector<std::pair<size_t, const ThreadStats*>> v;
  for (const auto& [tid, t] : threads_) v.emplace_back(t.order, &t.stats);
  std::sort(v.begin(), v.end());
  std::vector<const ThreadStats*> out;
  for (auto& [o, s] : v) out.push_back(s);
  return out;
}

}  // namespace sonde::trace
