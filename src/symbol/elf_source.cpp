#include <fmt/format.h>

#include "symbol/symbol_sources.h"

namespace sonde {

namespace {

// Where the table came from, for info(): the file with the full .symtab.
void describe_source(LoadedObject& o, const LocatedObject& found) {
  if (found.debug) {
    o.info.source = found.debug_source;
    o.info.symbol_file = found.debug->path();
  } else if (found.mini) {
    o.info.source = "minidebuginfo";
    o.info.symbol_file = found.mini->path();
  } else {
    o.info.source = found.binary_source;
    o.info.symbol_file = found.binary->path();
  }
}

}  // namespace

void load_elf_source(LoadedObject& o, ObjectLocator& locator, const BuildId& id, const std::string& path, pid_t pid) {
  o.info.kind = ObjectKind::kElf;
  o.original_path = path;
  LocatedObject found = locator.find_symbols(id, path, pid);
  o.info.note = found.note;
  if (!found.found()) {
    o.info.reason = found.reason;
    return;
  }
  // The full symbol table first: it decides among aliases, as in perf.
  if (found.debug) o.table.add_elf(*found.debug, false);
  if (found.mini) o.table.add_elf(*found.mini, false);
  if (found.binary) o.table.add_elf(*found.binary, true);
  o.table.finalize();
  o.info.symbol_count = o.table.size();
  o.addr_file = found.binary ? found.binary.get() : found.debug.get();
  if (found.debug && found.debug->has_dwarf()) o.dwarf_file = found.debug.get();
  else if (found.binary && found.binary->has_dwarf()) o.dwarf_file = found.binary.get();
  describe_source(o, found);
  for (auto* f : {&found.binary, &found.debug, &found.mini})
    if (*f) o.files.push_back(std::move(*f));
  if (o.table.empty()) {
    o.info.reason = Reason::kUnknown;
    o.info.note = fmt::format("{}: no symbols", o.info.symbol_file);
  }
}

bool load_elf_dwarf(LoadedObject& o, ObjectLocator& locator, NoteList& notes) {
  if (o.dwarf_tried) return o.dwarf != nullptr;
  o.dwarf_tried = true;
  if (!o.dwarf_file && o.info.kind == ObjectKind::kElf && o.addr_file) {
    // Symbols came from a file without DWARF: look for debug info now,
    // only for objects someone asked source lines for.
    const ElfFile& first = *o.files.front();
    BuildId want = !o.info.build_id.empty() ? o.info.build_id : first.build_id();
    if (auto d = locator.find_dwarf(want, first, o.original_path)) {
      o.dwarf_file = d.get();
      o.files.push_back(std::move(d));
    }
  }
  if (!o.dwarf_file) return false;
  std::string why;
  o.dwarf = DwarfInfo::open(*o.dwarf_file, &why);
  if (!o.dwarf) notes.add(why);
  return o.dwarf != nullptr;
}

}  // namespace sonde
