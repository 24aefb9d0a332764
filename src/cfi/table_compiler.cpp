#include "cfi/table_compiler.h"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <memory>

#include "cfi/eh_frame_hdr.h"
#include "elf/elf_file.h"

namespace sonde::cfi {

namespace {

// x86-64 DWARF register numbers.
constexpr int kRbp = 6, kRsp = 7, kRip = 16;
// The largest CFA offset and rbp slot a row holds (cfi_abi.h).
constexpr int64_t kMaxOffset = 0xffff, kMaxSlot = 0xff;

struct FrameDeleter {
  void operator()(Dwarf_Frame* f) const { std::free(f); }
};
using FramePtr = std::unique_ptr<Dwarf_Frame, FrameDeleter>;

// glibc's and binutils' PLT CFA expression: rsp + 8 + ((rip & 15) >= K) << 3.
bool is_plt_expression(const Dwarf_Op* ops, size_t n, uint32_t& threshold) {
  if (n != 9) return false;
  const uint8_t want[9] = {DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0, DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus};
  for (size_t i = 0; i < n; ++i)
    if (i != 4 && ops[i].atom != want[i]) return false;
  if (ops[0].number != 8 || ops[1].number != 0) return false;
  if (ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit31) return false;
  threshold = ops[4].atom - DW_OP_lit0;
  return true;
}

// The CFA rule of a frame into `r`; false when it is none the unwinder follows.
bool cfa_rule(Dwarf_Frame* frame, Rule& r) {
  Dwarf_Op* ops = nullptr;
  size_t n = 0;
  if (dwarf_frame_cfa(frame, &ops, &n) != 0 || n == 0) return false;
  if (is_plt_expression(ops, n, r.offset)) {
    r.cfa = SONDE_CFA_PLT;
    return true;
  }
  if (n != 1) return false;
  // libdw gives a register rule as DW_OP_bregx REG OFFSET; an expression
  // of one DW_OP_bregN is the same rule.
  int64_t reg = -1, off = 0;
  if (ops[0].atom == DW_OP_bregx) {
    reg = static_cast<int64_t>(ops[0].number);
    off = static_cast<int64_t>(ops[0].number2);
  } else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
    reg = ops[0].atom - DW_OP_breg0;
    off = static_cast<int64_t>(ops[0].number);
  }
  if ((reg != kRsp && reg != kRbp) || off < 0 || off > kMaxOffset) return false;
  r.cfa = reg == kRsp ? SONDE_CFA_RSP : SONDE_CFA_RBP;
  r.offset = static_cast<uint32_t>(off);
  return true;
}

// Where a register is saved: 1 = at CFA + *offset, 0 = same value,
// -1 = undefined, -2 = a rule the unwinder cannot follow.
int saved_at(Dwarf_Frame* frame, int regno, int64_t* offset) {
  Dwarf_Op mem[3];
  Dwarf_Op* ops = nullptr;
  size_t n = 0;
  if (dwarf_frame_register(frame, regno, mem, &ops, &n) != 0) return -2;
  if (n == 0) return ops == nullptr ? 0 : -1;
  if (ops[0].atom != DW_OP_call_frame_cfa) return -2;
  if (n == 1) {
    *offset = 0;
    return 1;
  }
  if (n != 2 || ops[1].atom != DW_OP_plus_uconst) return -2;
  *offset = static_cast<int64_t>(ops[1].number);
  return 1;
}

// The packed row of one frame state.
Rule rule_of(Dwarf_Frame* frame) {
  Rule r;
  int64_t ra = 0, rbp = 0;
  int ra_rule = saved_at(frame, kRip, &ra);
  if (ra_rule == -1) return Rule{SONDE_CFA_END};
  if (!cfa_rule(frame, r) || ra_rule != 1 || ra != -8) return Rule{SONDE_CFA_UNSUPPORTED};
  int rbp_rule = saved_at(frame, kRbp, &rbp);
  if (rbp_rule == 1) {
    if (rbp >= 0 || -rbp % 8 != 0 || -rbp / 8 > kMaxSlot) return Rule{SONDE_CFA_UNSUPPORTED};
    r.rbp = SONDE_RBP_SAVED;
    r.rbp_slot = static_cast<uint32_t>(-rbp / 8);
  } else if (rbp_rule == -2) {
    return Rule{SONDE_CFA_UNSUPPORTED};
  }
  return r;
}

uint64_t pack(uint64_t pc, const Rule& r) { return SONDE_ROW(pc, r.cfa, r.offset, r.rbp, r.rbp_slot); }

// Appends a row unless the last one has the same rule.
void append(UnwindTable& t, uint64_t vaddr, const Rule& r) {
  if (!t.rows.empty() && decode(t.rows.back()) == r) return;
  t.rows.push_back(pack(vaddr - t.base, r));
}

// The rows of the FDE starting at `start`, up to `next` (the next FDE's
// start); a NONE row where it ends before `next`.
void compile_fde(Dwarf_CFI* cfi, uint64_t start, uint64_t next, UnwindTable& t) {
  uint64_t addr = start;
  while (addr < next) {
    Dwarf_Frame* raw = nullptr;
    if (dwarf_cfi_addrframe(cfi, addr, &raw) != 0) break;
    FramePtr frame(raw);
    Dwarf_Addr lo = 0, hi = 0;
    bool signal = false;
    if (dwarf_frame_info(frame.get(), &lo, &hi, &signal) < 0 || hi <= addr) break;
    // A signal trampoline's rules are expressions over the saved context;
    // the walker reads that context itself (SONDE_CFA_SIGNAL).
    Rule r = signal ? Rule{SONDE_CFA_SIGNAL} : rule_of(frame.get());
    ++t.stats.ranges;
    if (r.cfa == SONDE_CFA_UNSUPPORTED) ++t.stats.unsupported;
    if (r.cfa == SONDE_CFA_PLT) ++t.stats.plt;
    if (r.cfa == SONDE_CFA_RBP) ++t.stats.rbp_cfa;
    append(t, addr, r);
    addr = hi;
  }
  if (addr < next) append(t, addr, Rule{});
}

// The FDE start addresses of `elf`'s .debug_frame (absolute 8-byte
// addresses, x86-64), walked by libdw's entry reader; empty when it has
// none, or it cannot be read (a compressed section, a broken entry).
std::vector<uint64_t> debug_frame_starts(const ElfFile& elf) {
  std::vector<uint64_t> out;
  auto bytes = elf.section_data(".debug_frame");
  if (!bytes || bytes->empty()) return out;
  Elf_Data data{};
  data.d_buf = const_cast<uint8_t*>(bytes->data());  // libdw only reads it
  data.d_size = bytes->size();
  data.d_type = ELF_T_BYTE;
  data.d_version = EV_CURRENT;
  static const unsigned char ident[EI_NIDENT] = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT};
  Dwarf_Off offset = 0, next = 0;
  Dwarf_CFI_Entry entry;
  while (offset < bytes->size() && dwarf_next_cfi(ident, &data, false, offset, &next, &entry) == 0) {
    if (!dwarf_cfi_cie_p(&entry) && entry.fde.end - entry.fde.start >= 16) {
      uint64_t start = 0, range = 0;
      std::memcpy(&start, entry.fde.start, 8);
      std::memcpy(&range, entry.fde.start + 8, 8);
      if (range) out.push_back(start);
    }
    if (next <= offset) break;
    offset = next;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Every FDE start, .eh_frame's and .debug_frame's, sorted; `from_debug`
// marks those only .debug_frame covers (an .eh_frame FDE of the same start
// is preferred: it is what the runtime itself unwinds with).
struct FdeStart {
  uint64_t addr;
  bool from_debug;
  bool operator<(const FdeStart& o) const { return addr < o.addr; }
};
std::vector<FdeStart> merged_starts(const std::vector<uint64_t>& eh, const std::vector<uint64_t>& debug) {
  std::vector<FdeStart> out;
  for (uint64_t a : eh) out.push_back({a, false});
  for (uint64_t a : debug)
    if (!std::binary_search(eh.begin(), eh.end(), a)) out.push_back({a, true});
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Rule decode(uint64_t row) {
  return Rule{SONDE_ROW_CFA(row), SONDE_ROW_OFFSET(row), SONDE_ROW_RBP(row), SONDE_ROW_RBP_SLOT(row)};
}

Rule UnwindTable::rule_at(uint64_t vaddr) const {
  if (vaddr < base || vaddr - base > UINT32_MAX) return Rule{};
  auto pc = static_cast<uint32_t>(vaddr - base);
  auto it = std::upper_bound(rows.begin(), rows.end(), pc,
                             [](uint32_t v, uint64_t row) { return v < SONDE_ROW_PC(row); });
  return it == rows.begin() ? Rule{} : decode(*(it - 1));
}

std::optional<UnwindTable> compile_table(const ElfFile& elf, std::string* why) {
  auto fail = [why](std::string reason) -> std::optional<UnwindTable> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  std::vector<uint64_t> eh;
  std::string reason = "no .eh_frame_hdr";
  auto hdr = elf.section_data(".eh_frame_hdr");
  auto info = elf.section_info(".eh_frame_hdr");
  if (hdr && info) {
    auto starts = fde_starts(*hdr, info->addr, &reason);
    if (!starts) return fail(reason);
    eh = std::move(*starts);
    if (eh.empty()) reason = ".eh_frame_hdr lists no FDE";
  }
  const std::vector<uint64_t> debug = debug_frame_starts(elf);
  if (eh.empty() && debug.empty()) return fail(reason);
  Dwarf_CFI* eh_cfi = eh.empty() ? nullptr : dwarf_getcfi_elf(elf.elf());
  if (!eh.empty() && !eh_cfi) return fail(std::string("libdw cannot read .eh_frame: ") + dwarf_errmsg(-1));
  // .debug_frame's CFI belongs to its Dwarf handle (no dwarf_cfi_end).
  Dwarf* dw = debug.empty() ? nullptr : dwarf_begin_elf(elf.elf(), DWARF_C_READ, nullptr);
  Dwarf_CFI* debug_cfi = dw ? dwarf_getcfi(dw) : nullptr;
  const std::vector<FdeStart> starts = merged_starts(eh, debug_cfi ? debug : std::vector<uint64_t>{});
  UnwindTable t;
  if (!starts.empty()) t.base = starts.front().addr;
  t.stats.fdes = starts.size();
  for (size_t i = 0; i < starts.size(); ++i) {
    uint64_t next = i + 1 < starts.size() ? starts[i + 1].addr : UINT64_MAX;
    if (starts[i].addr - t.base > UINT32_MAX - 1) break;  // beyond what a row's pc holds
    compile_fde(starts[i].from_debug ? debug_cfi : eh_cfi, starts[i].addr, std::min<uint64_t>(next, t.base + UINT32_MAX), t);
  }
  if (eh_cfi) dwarf_cfi_end(eh_cfi);
  if (dw) dwarf_end(dw);
  if (starts.empty()) return fail("libdw cannot read .debug_frame");
  return t;
}

}  // namespace sonde::cfi
