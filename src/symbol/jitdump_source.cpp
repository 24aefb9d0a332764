// Symbols of JIT code from its jitdump (jit-PID.dump). A frame in such code
// reaches this source through the mapping analysis/jit_timeline.h adds for
// each JIT_CODE_LOAD: the mapping maps the code's addresses onto the
// file offsets of its code bytes in the dump, so a lookup takes a file
// offset, like an ELF object's, and one address reused over time by
// several functions resolves to the one mapped there at the sample's time.
#include <algorithm>

#include "jit/jit_files.h"
#include "jit/jitdump.h"
#include "symbol/symbol_sources.h"

namespace sonde {

namespace {
// A dump is read whole; bounded so a runaway writer cannot exhaust memory.
constexpr uint64_t kMaxJitdumpBytes = 1ull << 30;
}  // namespace

std::unique_ptr<LoadedObject> load_jitdump_source(const std::string& recorded_path,
                                                  const std::vector<std::string>& copy_dirs) {
  auto o = std::make_unique<LoadedObject>();
  std::string file = jit::find_jit_file(recorded_path, copy_dirs);
  o->info.path = recorded_path;
  o->info.kind = ObjectKind::kJitDump;
  o->info.source = file == recorded_path ? "jitdump" : "jitdump copy";
  o->info.symbol_file = file;
  std::string why;
  if (!jit::read_jit_file(file, kMaxJitdumpBytes, o->text, &why)) {
    o->info.reason = Reason::kNotFound;
    o->info.note = why;
    return o;
  }
  auto bytes = std::span(reinterpret_cast<const uint8_t*>(o->text.data()), o->text.size());
  o->jitdump = std::make_unique<jit::JitDump>(jit::parse_jitdump(bytes));
  if (!o->jitdump->stopped.empty() && o->jitdump->code.empty()) {
    o->info.reason = Reason::kNotFound;
    o->info.note = file + ": " + o->jitdump->stopped;
    return o;
  }
  for (const auto& c : o->jitdump->code)
    if (!c.moved) o->table.add_view(c.code_offset, c.size, c.name);
  o->table.finalize(0);
  o->info.symbol_count = o->table.size();
  return o;
}

std::optional<SourceLine> jitdump_srcline(const LoadedObject& o, uint64_t offset) {
  if (!o.jitdump) return std::nullopt;
  const auto& dump = *o.jitdump;
  // The load whose bytes hold `offset` (file order is offset order).
  auto it = std::upper_bound(dump.code.begin(), dump.code.end(), offset,
                             [](uint64_t off, const jit::JitCode& c) { return off < c.code_offset; });
  while (it != dump.code.begin()) {
    --it;
    if (it->moved) continue;
    if (offset >= it->code_offset + it->size || it->line_count == 0) return std::nullopt;
    const uint64_t pc = it->addr + (offset - it->code_offset);
    std::span<const jit::JitLine> lines(dump.lines.data() + it->first_line, it->line_count);
    // The entry with the highest address at or below pc.
    const jit::JitLine* best = nullptr;
    for (const auto& l : lines)
      if (l.addr <= pc && (!best || l.addr >= best->addr)) best = &l;
    if (!best) best = &lines.front();
    return SourceLine{best->file, best->line, best->column};
  }
  return std::nullopt;
}

}  // namespace sonde
