#include "probe/sdt_note.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <map>
#include <memory>
#include <span>

#include "util/byte_reader.h"
#include "util/error.h"
#include "util/fd.h"

namespace sonde::probe {
namespace {

constexpr uint32_t kNtStapsdt = 3;

struct ElfHandle {
  Elf* elf = nullptr;
  ~ElfHandle() {
    if (elf) elf_end(elf);
  }
};

uint64_t swap_if(uint64_t v, bool swap, size_t size) {
  if (!swap) return v;
  return size == 8 ? __builtin_bswap64(v) : __builtin_bswap32(static_cast<uint32_t>(v));
}

struct Segment {
  uint64_t vaddr, memsz, filesz, offset;
  uint32_t flags;
};

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

// What scan_sdt_file needs of an ELF file's layout: its PT_LOAD segments
// and the sections it reads.
struct SdtLayout {
  std::vector<Segment> loads;
  std::optional<uint64_t> stapsdt_base;
  std::vector<Elf_Scn*> note_sections;
  Elf_Scn* symtab = nullptr;
  Elf_Scn* dynsym = nullptr;
  Elf_Scn* dynamic = nullptr;
};

SdtLayout read_layout(Elf* elf, const std::string& path) {
  SdtLayout l;
  size_t phnum = 0;
  if (elf_getphdrnum(elf, &phnum) != 0) throw_runtime("sdt: {}: bad program headers", path);
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(elf, static_cast<int>(i), &ph)) continue;
    if (ph.p_type == PT_LOAD) l.loads.push_back({ph.p_vaddr, ph.p_memsz, ph.p_filesz, ph.p_offset, ph.p_flags});
  }
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) throw_runtime("sdt: {}: bad section headers", path);
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
    if (!name) continue;
    if (sh.sh_type == SHT_NOTE && std::strcmp(name, ".note.stapsdt") == 0) l.note_sections.push_back(scn);
    if (std::strcmp(name, ".stapsdt.base") == 0) l.stapsdt_base = sh.sh_addr;
    if (sh.sh_type == SHT_SYMTAB) l.symtab = scn;
    if (sh.sh_type == SHT_DYNSYM) l.dynsym = scn;
    if (sh.sh_type == SHT_DYNAMIC) l.dynamic = scn;
  }
  return l;
}

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
void read_dynamic(Elf* elf, Elf_Scn* dynamic, SdtFile& out) {
  if (!dynamic) return;
  GElf_Shdr sh;
  Elf_Data* d = elf_getdata(dynamic, nullptr);
  if (!d || !gelf_getshdr(dynamic, &sh) || !sh.sh_entsize) return;
  for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; ++i) {
    GElf_Dyn dyn;
    if (!gelf_getdyn(d, static_cast<int>(i), &dyn)) break;
    if (dyn.d_tag == DT_NULL) break;
    if (dyn.d_tag == DT_NEEDED)
      if (const char* s = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)) out.needed.emplace_back(s);
    if (dyn.d_tag == DT_RUNPATH || dyn.d_tag == DT_RPATH)
      if (const char* s = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)) split_path_list(s, out.runpath);
  }
}

// Symbols for rip-relative operands, loaded on the first question: most
// binaries have none. The resolver shares the table it loads.
SymbolResolver lazy_symbol_resolver(Elf* elf, const SdtLayout& l) {
  struct Table {
    std::multimap<std::string, uint64_t> symbols;
    bool loaded = false;
  };
  auto table = std::make_shared<Table>();
  Elf_Scn* symtab = l.symtab;
  Elf_Scn* scn = l.symtab ? l.symtab : l.dynsym;
  auto load = [elf, scn, table] {
    table->loaded = true;
    if (!scn) return;
    GElf_Shdr sh;
    Elf_Data* d = elf_getdata(scn, nullptr);
    if (!d || !gelf_getshdr(scn, &sh) || !sh.sh_entsize) return;
    for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Sym s;
      if (!gelf_getsym(d, static_cast<int>(i), &s)) break;
      if (s.st_shndx == SHN_UNDEF || GELF_ST_TYPE(s.st_info) == STT_SECTION || GELF_ST_TYPE(s.st_info) == STT_FILE)
        continue;
      const char* n = elf_strptr(elf, sh.sh_link, s.st_name);
      if (n && *n) table->symbols.emplace(n, s.st_value);
    }
  };
  return [table, load, symtab](const std::string& name, std::string& why) -> std::optional<uint64_t> {
    if (!table->loaded) load();
    auto [lo, hi] = table->symbols.equal_range(name);
    if (lo == hi) {
      why = symtab ? "not in the symbol table" : "no symbol table (stripped?)";
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
uint64_t site_offset(const std::vector<Segment>& loads, uint64_t addr, bool exec, const SdtSite& s, const char* what,
                     const std::string& path) {
  for (const auto& seg : loads) {
    if (addr < seg.vaddr || addr >= seg.vaddr + seg.memsz) continue;
    if (exec != ((seg.flags & PF_X) != 0)) continue;
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
void for_each_stapsdt_note(Elf_Scn* scn, NoteFormat f, const std::string& path, Fn&& fn) {
  Elf_Data* data = elf_rawdata(scn, nullptr);
  if (!data || !data->d_buf) return;
  ByteReader r(static_cast<const uint8_t*>(data->d_buf), data->d_size);
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

SdtFile scan_sdt_file(const std::string& path, SdtArgs arg_parsing) {
  UniqueFd fd = open_regular_file(path.c_str());  // a FIFO would block forever
  if (!fd) throw_usage("sdt: cannot open {}: {}", path, errno == EINVAL ? "not a regular file" : errno_text(errno));
  if (elf_version(EV_CURRENT) == EV_NONE) throw_runtime("sdt: libelf initialisation failed");
  ElfHandle h;
  h.elf = elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr);
  if (!h.elf || elf_kind(h.elf) != ELF_K_ELF) throw_usage("sdt: {} is not an ELF file", path);
  GElf_Ehdr eh;
  if (!gelf_getehdr(h.elf, &eh)) throw_usage("sdt: {} is not an ELF file", path);

  SdtFile out;
  out.path = path;
  out.machine = eh.e_machine;
  out.elf64 = gelf_getclass(h.elf) == ELFCLASS64;
  if (auto id = read_build_id(fd.get())) out.build_id = *id;
  const NoteFormat nf{out.elf64 ? size_t{8} : size_t{4},
                      (eh.e_ident[EI_DATA] == ELFDATA2MSB) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)};
  const SdtLayout layout = read_layout(h.elf, path);
  read_dynamic(h.elf, layout.dynamic, out);
  SymbolResolver resolve = lazy_symbol_resolver(h.elf, layout);

  // Room for every site at once: growing the vector by doubling moved and
  // page-faulted twice the memory (1000 sites: 192 KB). A note is at least
  // its header, "stapsdt\0", three addresses and three string terminators.
  // (Sizes of the data libelf read, which lies within the file.)
  size_t note_bytes = 0;
  for (Elf_Scn* scn : layout.note_sections)
    if (Elf_Data* data = elf_rawdata(scn, nullptr)) note_bytes += data->d_size;
  out.sites.reserve(note_bytes / (12 + 8 + 3 * nf.asize + 3));

  for (Elf_Scn* scn : layout.note_sections)
    for_each_stapsdt_note(scn, nf, path, [&](std::span<const uint8_t> desc) {
      SdtSite s = parse_site(desc, nf, path);
      if (layout.stapsdt_base && s.base) {
        // Prelinked: everything moved by the same delta as .stapsdt.base.
        uint64_t delta = *layout.stapsdt_base - s.base;
        s.pc += delta;
        if (s.semaphore) s.semaphore += delta;
      }
      s.pc_offset = site_offset(layout.loads, s.pc, true, s, "probe", path);
      if (s.semaphore) s.sem_offset = site_offset(layout.loads, s.semaphore, false, s, "semaphore", path);
      if (arg_parsing == SdtArgs::Parse) s.parsed = parse_sdt_args(s.args, out.machine, resolve);
      out.sites.push_back(std::move(s));
    });
  return out;
}

}  // namespace sonde::probe
