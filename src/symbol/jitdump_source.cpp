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
  if (!jit::read_jit_file(file, jit::kMaxJitFileBytes, o->text, &why)) {
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

namespace {

// V8 writes its line addresses 0x40 past the code (where `perf inject` puts
// the code in the ELF file it makes): its first line is then at code+0x40.
uint64_t v8_line_bias(const jit::JitCode& c, std::span<const jit::JitLine> lines) {
  constexpr uint64_t kElfHeaderSize = 0x40;
  return lines.front().addr == c.addr + kElfHeaderSize ? kElfHeaderSize : 0;
}

// The script of a V8 code name ("JS:*hotLoop /app/x.js:2:17" -> /app/x.js),
// for lines whose file name V8 wrote wrong; "" when the name has none.
std::string_view script_of(std::string_view name) {
  size_t space = name.rfind(' ');
  if (space == std::string_view::npos) return {};
  std::string_view s = name.substr(space + 1);
  for (int i = 0; i < 2; ++i) {
    size_t colon = s.rfind(':');
    if (colon == std::string_view::npos || colon + 1 == s.size() ||
        s.find_first_not_of("0123456789", colon + 1) != std::string_view::npos)
      break;
    s = s.substr(0, colon);
  }
  return s;
}

}  // namespace

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
    std::span<const jit::JitLine> lines(dump.lines.data() + it->first_line, it->line_count);
    const uint64_t pc = it->addr + (offset - it->code_offset) + v8_line_bias(*it, lines);
    // The entry with the highest address at or below pc.
    const jit::JitLine* best = nullptr;
    for (const auto& l : lines)
      if (l.addr <= pc && (!best || l.addr >= best->addr)) best = &l;
    if (!best) best = &lines.front();
    std::string_view file = best->file.empty() ? script_of(it->name) : best->file;
    return SourceLine{file, best->line, best->column};
  }
  return std::nullopt;
}

}  // namespace sonde
