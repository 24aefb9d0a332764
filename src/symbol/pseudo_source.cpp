#include "symbol/symbol_sources.h"

namespace sonde {

void load_pseudo_source(LoadedObject& o, ObjectLocator& locator, const BuildId& id, const std::string& path) {
  LocatedObject found = locator.find_pseudo(id, path);
  if (!found.binary) {
    o.info.kind = ObjectKind::kNone;
    o.info.reason = Reason::kNotFound;
    return;
  }
  o.info.kind = ObjectKind::kElf;
  o.info.source = found.binary_source;
  if (found.debug) {
    // Named first: the debug vdso's .symtab decides among aliases.
    o.table.add_elf(*found.debug, false);
    o.info.source += " + " + found.debug->path();
    o.files.push_back(std::move(found.debug));
  }
  o.table.add_elf(*found.binary, false);
  o.table.finalize();
  o.info.symbol_file = found.binary->path();
  o.info.symbol_count = o.table.size();
  o.addr_file = found.binary.get();
  o.files.push_back(std::move(found.binary));
}

}  // namespace sonde
