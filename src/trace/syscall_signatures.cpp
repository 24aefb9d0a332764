#include "trace/syscall_signatures.h"

#include <string_view>

#include "format/tracepoint_format.h"
#include "record/tracing_data.h"
#include "trace/syscall_table.h"
#include "util/error.h"
#include "util/fs.h"

namespace sonde::trace {

namespace {

// "const char * filename" → "const char *" (the declaration holds the name).
std::string type_without_name(const std::string& decl, const std::string& name) {
  std::string_view d = decl;
  if (d.size() > name.size() && d.substr(d.size() - name.size()) == name) d.remove_suffix(name.size());
  while (!d.empty() && d.back() == ' ') d.remove_suffix(1);
  return std::string(d);
}

// The kernel names a few entry points unlike the headers' numbers (the
// "new" stat family, uname, umount2).
std::vector<std::string> format_names(std::string_view name) {
  std::vector<std::string> out{std::string(name), "new" + std::string(name)};
  if (name == "umount2") out.emplace_back("umount");
  return out;
}

}  // namespace

std::string SyscallSignatures::find_events_dir() {
  try {
    return record::tracefs_root() + "/events";
  } catch (const Error&) {
    return "";
  }
}

SyscallSignature SyscallSignatures::load(uint32_t nr) const {
  SyscallSignature sig;
  sig.name = std::string(syscall_name(nr));
  if (sig.name.empty()) sig.name = "syscall_" + std::to_string(nr);
  if (events_dir_.empty()) return sig;
  for (const auto& n : format_names(sig.name)) {
    auto text = read_small_file(events_dir_ + "/syscalls/sys_enter_" + n + "/format");
    format::TracepointFormat fmt;
    if (!text || !format::parse_tracepoint_format(*text, "syscalls", fmt)) continue;
    for (const auto& f : fmt.fields) {
      if (f.name == "__syscall_nr") continue;
      SyscallArg a;
      a.name = f.name;
      a.type = type_without_name(f.type, f.name);
      a.pointer = a.type.find('*') != std::string::npos;
      sig.args.push_back(std::move(a));
    }
    sig.described = true;
    break;
  }
  return sig;
}

const SyscallSignature& SyscallSignatures::get(uint32_t nr) {
  auto it = cache_.find(nr);
  if (it == cache_.end()) it = cache_.emplace(nr, load(nr)).first;
  return it->second;
}

}  // namespace sonde::trace
