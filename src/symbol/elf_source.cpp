#include <fmt/format.h>

#include "symbol/symbol_index.h"
#include "symbol/symbol_index_store.h"
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

// The table from the ELF files: the full symbol table first, since it
// decides among aliases, as in perf.
void build_table(LoadedObject& o, const LocatedObject& found) {
  if (found.debug) o.table.add_elf(*found.debug, false);
  if (found.mini) o.table.add_elf(*found.mini, false);
  if (found.binary) o.table.add_elf(*found.binary, true);
  o.table.finalize();
}

// The object's table as a symbol index: the cache's when it holds a valid
// one for these sources, else built from the files, encoded, and kept in
// the cache for the next run. Lookups then use the index alone (the table
// when there is no cache).
void index_symbols(LoadedObject& o, const LocatedObject& found, BuildIdCache* cache, const BuildId& id) {
  SymbolIndexKey key;
  key.build_id = !id.empty() ? id : found.binary ? found.binary->build_id() : found.debug->build_id();
  key.sources = (found.debug ? kIndexFromDebugFile : 0u) | (found.mini ? kIndexFromMiniDebugInfo : 0u);
  const bool cacheable = cache && !key.build_id.empty();
  if (cacheable) {
    if (auto cached = load_symbol_index(*cache, key)) {
      o.index_file = std::move(cached->file);
      o.index = cached->view;
      return;
    }
  }
  build_table(o, found);
  // Without a cache to keep it in, encoding would only cost time: lookups
  // stay on the table (SymbolIndex.* tests hold both paths to one answer).
  if (!cacheable) return;
  o.index_bytes = encode_symbol_index(o.table, key);
  if (o.index_bytes.size() > kSymbolIndexMaxBytes) {
    o.index_bytes.clear();  // lookups stay on `table`
    return;
  }
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(o.index_bytes.data()), o.index_bytes.size());
  o.index = SymbolIndex::open(bytes, key, nullptr);
  if (!o.index) return;
  save_symbol_index(*cache, key, o.original_path, o.index_bytes);
  o.table = SymbolTable();  // names point into the files, which stay open
}

}  // namespace

void load_elf_source(LoadedObject& o, ObjectLocator& locator, BuildIdCache* cache, const BuildId& id,
                     const std::string& path, pid_t pid) {
  o.info.kind = ObjectKind::kElf;
  o.original_path = path;
  LocatedObject found = locator.find_symbols(id, path, pid);
  o.info.note = found.note;
  if (!found.found()) {
    o.info.reason = found.reason;
    return;
  }
  index_symbols(o, found, cache, id);
  o.info.symbol_count = o.index ? o.index->size() : o.table.size();
  o.addr_file = found.binary ? found.binary.get() : found.debug.get();
  if (found.debug && found.debug->has_dwarf()) o.dwarf_file = found.debug.get();
  else if (found.binary && found.binary->has_dwarf()) o.dwarf_file = found.binary.get();
  describe_source(o, found);
  for (auto* f : {&found.binary, &found.debug, &found.mini})
    if (*f) o.files.push_back(std::move(*f));
  if (o.info.symbol_count == 0) {
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
