#include "annotate/annotated_symbol.h"

#include <fmt/format.h>

#include "util/error.h"

namespace sonde::annotate {

Annotator::Annotator(Symbolizer& symbolizer, Syntax syntax, CodeOptions code)
    : sym_(symbolizer), disasm_(syntax), code_(symbolizer, std::move(code)) {}

Annotator::~Annotator() = default;

// objdump's "117a <hot_loop+0x41>": the address, then the symbol holding it.
std::string Annotator::target_text(const SymbolHist& h, const Instruction& insn) {
  uint64_t to = *insn.target;
  std::string name;
  uint64_t off = 0;
  if (to >= h.symbol_addr && to < code_end_) {
    name = h.name, off = to - h.symbol_addr;
  } else if (h.object.valid()) {
    // The kernel's table takes addresses; a jitdump's, offsets of each
    // load's bytes in the dump (another function's are not `to`'s image).
    ObjectKind kind = sym_.info(h.object).kind;
    std::optional<uint64_t> key;
    if (kind == ObjectKind::kKernel) key = to;
    else if (kind == ObjectKind::kElf) key = h.file_offset + (to - h.symbol_addr);
    ResolvedSymbol r = key ? sym_.lookup(h.object, *key) : ResolvedSymbol{};
    if (r.resolved()) name = std::string(r.name), off = r.offset;
  }
  if (name.empty()) return fmt::format("{:x}", to);
  if (off == 0) return fmt::format("{:x} <{}>", to, name);
  return fmt::format("{:x} <{}+{:#x}>", to, name, off);
}

// objdump's comment for a %rip-relative operand: "4020 <sink>", a data
// object's name, else the function there, else the address alone.
std::string Annotator::data_text(const ElfFile* names, const SymbolHist& h, uint64_t addr) {
  const DataSymbols* data = nullptr;
  if (names) data = &data_.try_emplace(names, *names).first->second;
  if (data)
    if (auto name = data->name_at(addr)) return fmt::format("{:x} <{}>", addr, *name);
  Instruction at;
  at.target = addr;
  std::string text = target_text(h, at);
  if (text.find('<') != std::string::npos || !data) return text;
  if (auto name = data->name_at(addr, false)) return fmt::format("{:x} <{}>", addr, *name);
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
  const SymbolCode code = code_.code_for(h);
  AnnotatedSymbol out;
  out.hist = &h;
  out.object_path = code.path;
  // perf's header names the file the kernel's code came from; else the
  // recorded object.
  out.object_name = h.kernel ? code.path : h.dso;
  code_end_ = h.symbol_addr + code.bytes().size();
  for (auto& insn : disasm_.disassemble(code.bytes(), h.symbol_addr)) {
    AnnotatedInsn ai;
    ai.text = instruction_text(insn, insn.target ? target_text(h, insn) : std::string());
    if (insn.rip_target) ai.text += "        # " + data_text(code.names, h, *insn.rip_target);
    const uint64_t begin = insn.addr - h.symbol_addr, end = begin + insn.size;
    for (auto it = h.self.lower_bound(begin); it != h.self.end() && it->first < end; ++it) ai.self += it->second;
    for (auto it = h.children.lower_bound(begin); it != h.children.end() && it->first < end; ++it)
      ai.children += it->second;
    ai.insn = std::move(insn);
    out.insns.push_back(std::move(ai));
  }
  if (with_lines && !h.kernel) add_places(out);  // a vmlinux's DWARF is not read (yet)
  return out;
}

}  // namespace sonde::annotate
