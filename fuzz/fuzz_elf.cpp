// ELF objects: an image in memory and a file (symbol tables with @plt names
// and aliases, sections, PT_LOAD offsets, .gnu_debuglink, MiniDebugInfo), and
// build-ids from a whole image, from its file, and from raw note bytes.
#include <vector>

#include "elf/build_id.h"
#include "elf/elf_file.h"
#include "elf/symbol_table.h"
#include "fuzz_input.h"

namespace {

void use(const sonde::ElfFile& elf) {
  sonde::SymbolTable table;
  table.add_elf(elf);
  table.finalize();
  for (const auto& seg : elf.load_segments()) {
    (void)table.find(seg.vaddr);
    (void)elf.offset_to_vaddr(seg.offset);
    (void)elf.vaddr_to_offset(seg.vaddr + seg.filesz / 2);
  }
  for (const char* name : {".text", ".note.gnu.build-id", ".gnu_debuglink", ".dynsym", ".bss"}) {
    (void)elf.section_data(name);
    (void)elf.section_info(name);
  }
  (void)elf.has_symtab();
  (void)elf.has_dynsym();
  (void)elf.has_dwarf();
  (void)elf.debuglink();
  std::string why;
  if (auto mini = elf.open_minidebuginfo(&why)) {
    sonde::SymbolTable inner;
    inner.add_elf(*mini);
    inner.finalize();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  (void)sonde::read_build_id(bytes);
  (void)sonde::find_build_id_in_notes(bytes);
  std::string why;
  if (auto elf = sonde::ElfFile::from_memory(std::vector<uint8_t>(data, data + size), "fuzz", &why)) use(*elf);
  sonde::fuzz::InputFile in(data, size);
  (void)sonde::read_build_id(in.path());
  (void)sonde::read_build_id_from_notes_file(in.path());
  if (auto elf = sonde::ElfFile::open(in.path(), &why)) use(*elf);
  return 0;
}
