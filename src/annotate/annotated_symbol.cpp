#include "annotate/annotated_symbol.h"

#include <fmt/format.h>

#include "cache/buildid_cache.h"
#include "util/error.h"
#include "util/mapped_path.h"
#include "util/proc_maps.h"

namespace sonde::annotate {

Annotator::Annotator(Symbolizer& symbolizer, Syntax syntax) : sym_(symbolizer), disasm_(syntax) {
  const SymbolizerOptions& o = sym_.options();
  if (o.use_cache) cache_ = std::make_unique<BuildIdCache>(BuildIdCache::default_root(o.cache_root));
  LocatorOptions lo;
  lo.debug_roots = o.debug_roots;
  lo.use_proc_root = o.use_proc_root;
  locator_ = std::make_unique<ObjectLocator>(lo, cache_.get(), notes_);
}

Annotator::~Annotator() = default;

namespace {

// Where find_binary looked, for the one-line error.
std::string places_looked(const SymbolHist& h, const BuildIdCache* cache) {
  std::string where;
  if (cache && !h.build_id.empty()) where = fmt::format("the build-id cache {}", cache->root());
  if (!h.dso.empty() && h.dso.front() == '/') {
    if (h.pid > 0) where += fmt::format("{}{}", where.empty() ? "" : ", ", proc_root_path(pid_t(h.pid), h.dso));
    where += fmt::format("{}{}", where.empty() ? "" : ", ", h.dso);
  }
  return where.empty() ? "nowhere to look (no build-id, no path)" : where;
}

}  // namespace

const ElfFile& Annotator::binary_for(const SymbolHist& h) {
  if (h.kernel)
    throw_runtime("cannot annotate {}: kernel code needs a vmlinux, which sonde annotate does not read yet "
                  "(only kallsyms names were found)", h.name);
  std::string key = h.build_id.empty() ? h.dso : h.build_id.hex();
  auto it = binaries_.find(key);
  if (it == binaries_.end()) {
    LocatedObject found = is_pseudo_path(h.dso) ? locator_->find_pseudo(h.build_id, h.dso)
                                                 : locator_->find_symbols(h.build_id, h.dso, pid_t(h.pid));
    it = binaries_.emplace(key, std::move(found)).first;
  }
  const LocatedObject& found = it->second;
  if (!found.binary) {
    if (found.reason == Reason::kBuildIdMismatch) throw_runtime("cannot annotate {}: {}", h.name, found.note);
    throw_runtime("cannot annotate {}: {}{} not found (looked in {})", h.name, h.dso,
                  h.build_id.empty() ? "" : " (build-id " + h.build_id.hex() + ")", places_looked(h, cache_.get()));
  }
  return *found.binary;
}

namespace {

// The symbol's bytes in the file: one PT_LOAD's file contents must hold
// them all (a symbol in .bss, or a debug file's NOBITS .text, has none).
std::span<const uint8_t> symbol_bytes(const ElfFile& bin, const SymbolHist& h) {
  if (h.symbol_size == 0) throw_runtime("cannot annotate {}: the symbol has no size (no code to show)", h.name);
  auto first = bin.vaddr_to_offset(h.symbol_addr);
  auto last = bin.vaddr_to_offset(h.symbol_addr + h.symbol_size - 1);
  std::span<const uint8_t> image = bin.bytes();
  if (!first || !last || *last - *first != h.symbol_size - 1 || image.empty() || *last >= image.size())
    throw_runtime("cannot annotate {}: {} has no code bytes for it at {:#x}", h.name, bin.path(), h.symbol_addr);
  return image.subspan(*first, h.symbol_size);
}

}  // namespace

// objdump's "117a <hot_loop+0x41>": the address, then the symbol holding it.
std::string Annotator::target_text(const SymbolHist& h, const Instruction& insn) {
  uint64_t to = *insn.target;
  std::string name;
  uint64_t off = 0;
  if (to >= h.symbol_addr && to < h.symbol_addr + h.symbol_size) {
    name = h.name, off = to - h.symbol_addr;
  } else if (!h.kernel && h.object.valid()) {
    ResolvedSymbol r = sym_.lookup(h.object, h.file_offset + (to - h.symbol_addr));
    if (r.resolved()) name = std::string(r.name), off = r.offset;
  }
  if (name.empty()) return fmt::format("{:x}", to);
  if (off == 0) return fmt::format("{:x} <{}>", to, name);
  return fmt::format("{:x} <{}+{:#x}>", to, name, off);
}

// objdump's comment for a %rip-relative operand: "4020 <sink>", a data
// object's name, else the function there, else the address alone.
std::string Annotator::data_text(const ElfFile& bin, const SymbolHist& h, uint64_t addr) {
  auto it = data_.find(&bin);
  if (it == data_.end()) {
    // A separate debug file's .symtab names what the stripped object's cannot.
    const ElfFile* names = &bin;
    for (const auto& [key, found] : binaries_)
      if (found.binary.get() == &bin && found.debug) names = found.debug.get();
    it = data_.emplace(&bin, DataSymbols(*names)).first;
  }
  if (auto name = it->second.name_at(addr)) return fmt::format("{:x} <{}>", addr, *name);
  Instruction at;
  at.target = addr;
  std::string text = target_text(h, at);
  if (text.find('<') != std::string::npos) return text;
  if (auto name = it->second.name_at(addr, false)) return fmt::format("{:x} <{}>", addr, *name);
  return text;
}

void Annotator::add_places(AnnotatedSymbol& out) {
  const SymbolHist& h = *out.hist;
  std::vector<InlineFrame> frames;
  for (auto& ai : out.insns) {
    uint64_t file_offset = h.file_offset + (ai.insn.addr - h.symbol_addr);
    auto line = sym_.srcline(h.object, file_offset);
    if (!line || line->line == 0) continue;
    SourcePlace place;
    place.file = std::string(line->file);
    place.line = line->line;
    sym_.inline_frames(h.object, file_offset, frames);
    for (const auto& f : frames)
      place.inlined.push_back({std::string(f.function), std::string(f.call_file), f.call_line});
    if (!out.places.empty() && out.places.back() == place) {
      ai.place = int(out.places.size() - 1);
      continue;
    }
    out.places.push_back(std::move(place));
    ai.place = int(out.places.size() - 1);
  }
}

AnnotatedSymbol Annotator::annotate(const SymbolHist& h, bool with_lines) {
  const ElfFile& bin = binary_for(h);
  std::span<const uint8_t> code = symbol_bytes(bin, h);
  AnnotatedSymbol out;
  out.hist = &h;
  out.object_path = bin.path();
  for (auto& insn : disasm_.disassemble(code, h.symbol_addr)) {
    AnnotatedInsn ai;
    ai.text = instruction_text(insn, insn.target ? target_text(h, insn) : std::string());
    if (insn.rip_target) ai.text += "        # " + data_text(bin, h, *insn.rip_target);
    const uint64_t begin = insn.addr - h.symbol_addr, end = begin + insn.size;
    for (auto it = h.self.lower_bound(begin); it != h.self.end() && it->first < end; ++it) ai.self += it->second;
    for (auto it = h.children.lower_bound(begin); it != h.children.end() && it->first < end; ++it)
      ai.children += it->second;
    ai.insn = std::move(insn);
    out.insns.push_back(std::move(ai));
  }
  if (with_lines) add_places(out);
  return out;
}

}  // namespace sonde::annotate
