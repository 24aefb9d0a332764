#include "probe/sdt_note.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <map>
#include <memory>
#include <span>

#include "elf/elf_file.h"
#include "util/byte_reader.h"
#include "util/error.h"
#include "util/fd.h"

namespace sonde::probe {
namespace {

constexpr uint32_t kNtStapsdt = 3;

uint64_t swap_if(uint64_t v, bool swap, size_t size) {
  if (!swap) return v;
  return size == 8 ? __builtin_bswap64(v) : __builtin_bswap32(static_cast<uint32_t>(v));
}

}  // namespace

namespace {
std::string dirname_of(const std::string& p) {
  size_t s = p.rfind('/');
  return s == std::string::npos || s == 0 ? "/" : p.substr(0, s);
}
bool readable(const std::string& p) { return ::access(p.c_str(), R_OK) == 0; }
}  // namespace

// Where the dynamic loader would find `soname` for `from` (enough for
// probing: RUNPATH/RPATH with $ORIGIN, LD_LIBRARY_PATH, the usual folders).
std::optional<std::string> find_needed_library(const std::string& soname, const SdtFile& from) {
  if (soname.find('/') != std::string::npos) return readable(soname) ? std::optional(soname) : std::nullopt;
  std::vector<std::string> dirs;
  for (std::string d : from.runpath) {
    for (const char* o : {"$ORIGIN", "${ORIGIN}"}) {
      size_t at = d.find(o);
      if (at != std::string::npos) d.replace(at, std::strlen(o), dirname_of(from.path));
    }
    dirs.push_back(d);
  }
  if (const char* llp = std::getenv("LD_LIBRARY_PATH")) {
    std::stringstream ss(llp);
    std::string d;
    while (std::getline(ss, d, ':'))
      if (!d.empty()) dirs.push_back(d);
  }
  for (const char* d : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
                        "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib"})
    dirs.emplace_back(d);
  for (const auto& d : dirs) {
    std::string p = d + "/" + soname;
    if (readable(p)) return p;
  }
  return std::nullopt;
}

namespace {

void split_path_list(std::string_view rest, std::vector<std::string>& out) {
  while (!rest.empty()) {
    size_t c = rest.find(':');
    out.emplace_back(rest.substr(0, c));
    if (c == std::string_view::npos) break;
    rest.remove_prefix(c + 1);
  }
}

// DT_NEEDED and DT_RUNPATH/DT_RPATH, for `sdt add --deps` and the
// workload's libraries.
void read_dynamic(const ElfFile& elf, SdtFile& out) {
  DynamicNames names = elf.dynamic_names();
  out.needed = std::move(names.needed);
  for (const auto& p : names.runpath) split_path_list(p, out.runpath);
}

// Symbols for rip-relative operands, loaded on the first question: most
// binaries have none. The resolver shares the table it loads.
SymbolResolver lazy_symbol_resolver(std::shared_ptr<const ElfFile> elf) {
  struct Table {
    std::multimap<std::string, uint64_t> symbols;
    bool loaded = false;
    bool has_symtab = false;
  };
  auto table = std::make_shared<Table>();
  auto load = [elf, table] {
    table->loaded = true;
    auto add = [&](const ElfSymbol& s) {
      if (s.section == SHN_UNDEF || s.type == STT_SECTION || s.type == STT_FILE || s.name.empty()) return;
      table->symbols.emplace(s.name, s.value);
    };
    table->has_symtab = elf->for_each_symbol(SHT_SYMTAB, add);
    if (!table->has_symtab) elf->for_each_symbol(SHT_DYNSYM, add);
  };
  return [table, load](const std::string& name, std::string& why) -> std::optional<uint64_t> {
    if (!table->loaded) load();
    auto [lo, hi] = table->symbols.equal_range(name);
    if (lo == hi) {
      why = table->has_symtab ? "not in the symbol table" : "no symbol table (stripped?)";
      return std::nullopt;
    }
    uint64_t v = lo->second;
    for (auto it = lo; it != hi; ++it)
      if (it->second != v) {
        why = "several symbols have that name";
        return std::nullopt;
      }
    return v;
  };
}

// The file offset of a probe (in an executable segment) or a semaphore (in
// a non-executable one).
uint64_t site_offset(const std::vector<LoadSegment>& loads, uint64_t addr, bool exec, const SdtSite& s,
                     const char* what, const std::string& path) {
  for (const auto& seg : loads) {
    if (addr < seg.vaddr || addr >= seg.vaddr + seg.memsz) continue;
    if (exec != seg.executable) continue;
    if (addr >= seg.vaddr + seg.filesz)
      throw_runtime("sdt: {}: {} of {} at 0x{:x} is not backed by the file", path, what, s.full_name(), addr);
    return addr - seg.vaddr + seg.offset;
  }
  throw_runtime("sdt: {}: {} of {} at 0x{:x} is in no {}loadable segment (corrupt note?)", path, what,
                s.full_name(), addr, exec ? "executable " : "non-executable ");
}

// How a note's bytes are read: address size and byte order.
struct NoteFormat {
  size_t asize = 8;
  bool swap = false;
};

// One stapsdt note's descriptor: three addresses, provider, name, args.
SdtSite parse_site(std::span<const uint8_t> desc, NoteFormat f, const std::string& path) {
  ByteReader d(desc);
  SdtSite s;
  uint64_t addrs[3] = {0, 0, 0};
  for (auto& a : addrs) {
    std::span<const uint8_t> b;
    if (!d.bytes(f.asize, b)) throw_runtime("sdt: {}: corrupt .note.stapsdt (short descriptor)", path);
    const uint64_t v = f.asize == 8 ? load<uint64_t>(b.data()) : load<uint32_t>(b.data());
    a = swap_if(v, f.swap, f.asize);
  }
  std::string_view prov, nm, args;
  if (!d.cstring(prov) || !d.cstring(nm) || !d.cstring(args))
    throw_runtime("sdt: {}: corrupt .note.stapsdt (unterminated strings)", path);
  if (prov.empty() || nm.empty()) throw_runtime("sdt: {}: corrupt .note.stapsdt (empty provider or name)", path);
  s.provider = prov;
  s.name = nm;
  s.args = args;
  s.pc = addrs[0];
  s.base = addrs[1];
  s.semaphore = addrs[2];
  return s;
}

// Each stapsdt note of a .note.stapsdt section, in order.
template <typename Fn>
void for_each_stapsdt_note(std::span<const uint8_t> section, NoteFormat f, const std::string& path, Fn&& fn) {
  ByteReader r(section.data(), section.size());
  while (r.remaining() >= 12) {
    uint32_t namesz = 0, descsz = 0, type = 0;
    r.read(namesz);
    r.read(descsz);
    r.read(type);
    namesz = static_cast<uint32_t>(swap_if(namesz, f.swap, 4));
    descsz = static_cast<uint32_t>(swap_if(descsz, f.swap, 4));
    type = static_cast<uint32_t>(swap_if(type, f.swap, 4));
    std::span<const uint8_t> name, desc;
    if (!r.bytes(namesz, name) || !r.skip((4 - namesz % 4) % 4) || !r.bytes(descsz, desc))
      throw_runtime("sdt: {}: corrupt .note.stapsdt (truncated note)", path);
    r.skip(std::min<size_t>((4 - descsz % 4) % 4, r.remaining()));
    if (type != kNtStapsdt || namesz != 8 || std::memcmp(name.data(), "stapsdt", 8) != 0) continue;
    fn(desc);
  }
}

}  // namespace

namespace {

std::shared_ptr<const ElfFile> open_sdt_elf(const std::string& path) {
  UniqueFd fd = open_regular_file(path.c_str());  // a FIFO would block forever
  if (!fd) throw_usage("sdt: cannot open {}: {}", path, errno == EINVAL ? "not a regular file" : errno_text(errno));
  std::string reason;
  bool not_elf = true;
  std::shared_ptr<const ElfFile> elf = ElfFile::from_fd(std::move(fd), path, &reason, &not_elf);
  if (!elf && not_elf) throw_usage("sdt: {} is not an ELF file", path);
  if (!elf) throw_runtime("sdt: {}: bad program headers", path);
  if (!elf->section_names_readable()) throw_runtime("sdt: {}: bad section headers", path);
  return elf;
}

}  // namespace

SdtFile scan_sdt_file(const std::string& path, SdtArgs arg_parsing) {
  std::shared_ptr<const ElfFile> elf = open_sdt_elf(path);
  SdtFile out;
  out.path = path;
  out.machine = elf->machine();
  out.elf64 = elf->elf64();
  out.build_id = elf->build_id();
  const NoteFormat nf{out.elf64 ? size_t{8} : size_t{4}, elf->big_endian() != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)};
  read_dynamic(*elf, out);
  SymbolResolver resolve = lazy_symbol_resolver(elf);
  const auto notes = elf->sections_data(".note.stapsdt", SHT_NOTE);
  std::optional<uint64_t> stapsdt_base;
  if (auto base = elf->section_info(".stapsdt.base")) stapsdt_base = base->addr;

  // Room for every site at once: growing the vector by doubling moved and
  // page-faulted twice the memory (1000 sites: 192 KB). A note is at least
  // its header, "stapsdt\0", three addresses and three string terminators.
  // (Sizes of the data libelf read, which lies within the file.)
  size_t note_bytes = 0;
  for (auto section : notes) note_bytes += section.size();
  out.sites.reserve(note_bytes / (12 + 8 + 3 * nf.asize + 3));

  for (auto section : notes)
    for_each_stapsdt_note(section, nf, path, [&](std::span<const uint8_t> desc) {
      SdtSite s = parse_site(desc, nf, path);
      if (stapsdt_base && s.base) {
        // Prelinked: everything moved by the same delta as .stapsdt.base.
        uint64_t delta = *stapsdt_base - s.base;
        s.pc += delta;
        if (s.semaphore) s.semaphore += delta;
      }
      s.pc_offset = site_offset(elf->load_segments(), s.pc, true, s, "probe", path);
      if (s.semaphore) s.sem_offset = site_offset(elf->load_segments(), s.semaphore, false, s, "semaphore", path);
      if (arg_parsing == SdtArgs::Parse) s.parsed = parse_sdt_args(s.args, out.machine, resolve);
      out.sites.push_back(std::move(s));
    });
  return out;
}

}  // namespace sonde::probe
