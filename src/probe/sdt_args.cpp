#include "probe/sdt_args.h"

#include <fmt/format.h>

#include <array>
#include <cctype>

#include "util/parse_int.h"

namespace sonde::probe {
namespace {

// pt_regs slots on x86-64 (arch/x86/include/uapi/asm/ptrace.h order).
enum : uint8_t {
  R15 = 0, R14, R13, R12, RBP, RBX, R11, R10, R9, R8, RAX, RCX, RDX, RSI, RDI, ORIG_RAX, RIP,
};

struct RegName {
  std::string_view name;
  X86Reg reg;
};

constexpr std::array<RegName, 74> kX86Regs = {{
    {"rax", {RAX, 0, 8}}, {"eax", {RAX, 0, 4}}, {"ax", {RAX, 0, 2}}, {"al", {RAX, 0, 1}}, {"ah", {RAX, 8, 1}},
    {"rbx", {RBX, 0, 8}}, {"ebx", {RBX, 0, 4}}, {"bx", {RBX, 0, 2}}, {"bl", {RBX, 0, 1}}, {"bh", {RBX, 8, 1}},
    {"rcx", {RCX, 0, 8}}, {"ecx", {RCX, 0, 4}}, {"cx", {RCX, 0, 2}}, {"cl", {RCX, 0, 1}}, {"ch", {RCX, 8, 1}},
    {"rdx", {RDX, 0, 8}}, {"edx", {RDX, 0, 4}}, {"dx", {RDX, 0, 2}}, {"dl", {RDX, 0, 1}}, {"dh", {RDX, 8, 1}},
    {"rsi", {RSI, 0, 8}}, {"esi", {RSI, 0, 4}}, {"si", {RSI, 0, 2}}, {"sil", {RSI, 0, 1}},
    {"rdi", {RDI, 0, 8}}, {"edi", {RDI, 0, 4}}, {"di", {RDI, 0, 2}}, {"dil", {RDI, 0, 1}},
    {"rbp", {RBP, 0, 8}}, {"ebp", {RBP, 0, 4}}, {"bp", {RBP, 0, 2}}, {"bpl", {RBP, 0, 1}},
    {"rsp", {19, 0, 8}}, {"esp", {19, 0, 4}}, {"sp", {19, 0, 2}}, {"spl", {19, 0, 1}},
    {"r8", {R8, 0, 8}}, {"r8d", {R8, 0, 4}}, {"r8w", {R8, 0, 2}}, {"r8b", {R8, 0, 1}},
    {"r9", {R9, 0, 8}}, {"r9d", {R9, 0, 4}}, {"r9w", {R9, 0, 2}}, {"r9b", {R9, 0, 1}},
    {"r10", {R10, 0, 8}}, {"r10d", {R10, 0, 4}}, {"r10w", {R10, 0, 2}}, {"r10b", {R10, 0, 1}},
    {"r11", {R11, 0, 8}}, {"r11d", {R11, 0, 4}}, {"r11w", {R11, 0, 2}}, {"r11b", {R11, 0, 1}},
    {"r12", {R12, 0, 8}}, {"r12d", {R12, 0, 4}}, {"r12w", {R12, 0, 2}}, {"r12b", {R12, 0, 1}},
    {"r13", {R13, 0, 8}}, {"r13d", {R13, 0, 4}}, {"r13w", {R13, 0, 2}}, {"r13b", {R13, 0, 1}},
    {"r14", {R14, 0, 8}}, {"r14d", {R14, 0, 4}}, {"r14w", {R14, 0, 2}}, {"r14b", {R14, 0, 1}},
    {"r15", {R15, 0, 8}}, {"r15d", {R15, 0, 4}}, {"r15w", {R15, 0, 2}}, {"r15b", {R15, 0, 1}},
    {"rip", {RIP, 0, 8}}, {"eip", {RIP, 0, 4}},
    // gas also accepts the "l" spelling of the low byte of r8..r15
    {"r8l", {R8, 0, 1}}, {"r9l", {R9, 0, 1}}, {"r10l", {R10, 0, 1}}, {"r11l", {R11, 0, 1}},
}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Integer literals come from notes in binaries anyone can write: a value that
// does not fit is reported, never wrapped (signed overflow is UB, and a
// wrapped value would be a wrong recipe, not an error).
struct ParsedInt {
  enum Status { kOk, kNotANumber, kOutOfRange } status = kNotANumber;
  int64_t value = 0;
  explicit operator bool() const { return status == kOk; }
  int64_t operator*() const { return value; }
};

// A C integer literal without its sign: decimal or 0x hex, the whole string.
ParsedInt::Status parse_magnitude(std::string_view s, uint64_t& out) {
  IntSyntax syntax = IntSyntax::Decimal;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    syntax = IntSyntax::Hex;
    s.remove_prefix(2);
  }
  auto r = parse_uint<uint64_t>(s, 0, UINT64_MAX, syntax);
  if (r.error == IntError::AboveMax) return ParsedInt::kOutOfRange;
  if (!r) return ParsedInt::kNotANumber;
  out = r.value;
  return ParsedInt::kOk;
}

// The magnitude as a signed 64-bit value, or out of range.
ParsedInt signed_value(bool neg, uint64_t mag) {
  constexpr uint64_t kMinMagnitude = uint64_t{1} << 63;  // of INT64_MIN
  if (neg && mag == kMinMagnitude) return {ParsedInt::kOk, INT64_MIN};
  if (mag >= kMinMagnitude) return {ParsedInt::kOutOfRange, 0};
  return {ParsedInt::kOk, neg ? -static_cast<int64_t>(mag) : static_cast<int64_t>(mag)};
}

// Optional sign, then a literal: a signed 64-bit value. With `bit_pattern`
// (an immediate of up to 8 bytes) 0x8000000000000000..0xffffffffffffffff are
// taken as the 64-bit patterns they spell, as an assembler does.
ParsedInt parse_int(std::string_view s, bool bit_pattern = false) {
  s = trim(s);
  bool neg = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    neg = s.front() == '-';
    s.remove_prefix(1);
  }
  uint64_t mag = 0;
  if (auto st = parse_magnitude(s, mag); st != ParsedInt::kOk) return {st, 0};
  if (bit_pattern && !neg) return {ParsedInt::kOk, static_cast<int64_t>(mag)};
  return signed_value(neg, mag);
}

std::string too_big(std::string_view what, std::string_view op) {
  return fmt::format("{} in '{}' does not fit in 64 bits", what, op);
}

// A memory operand's offset: x86 encodes at most 32 signed bits, aarch64
// far fewer. A larger one is a damaged note, not an address to guess at.
bool fits_memory_offset(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'; }

// A memory operand's displacement: numbers and at most one symbol, joined
// by + and -. "" or why it cannot be read.
std::string parse_x86_displacement(std::string_view d, std::string_view op, int64_t& disp, std::string& sym) {
  size_t i = 0;
  while (i < d.size()) {
    bool neg = false;
    if (d[i] == '+' || d[i] == '-') {
      neg = d[i] == '-';
      ++i;
    }
    size_t j = i;
    while (j < d.size() && d[j] != '+' && d[j] != '-') ++j;
    std::string_view term = trim(d.substr(i, j - i));
    if (term.empty()) return fmt::format("malformed displacement in '{}'", op);
    if (is_ident_start(term.front()) && !(term.size() > 1 && term[0] == '0')) {
      if (neg || !sym.empty()) return fmt::format("unsupported symbol expression in '{}'", op);
      sym = std::string(term);
    } else {
      uint64_t mag = 0;
      auto st = parse_magnitude(term, mag);
      ParsedInt v = st == ParsedInt::kOk ? signed_value(neg, mag) : ParsedInt{st, 0};
      if (v.status == ParsedInt::kNotANumber) return fmt::format("malformed displacement in '{}'", op);
      if (!v || __builtin_add_overflow(disp, *v, &disp))
        return too_big("displacement", op);
    }
    i = j;
  }
  return {};
}

// A memory operand's (base, index, scale). "" or why it cannot be read.
std::string parse_x86_registers(const std::vector<std::string_view>& parts, std::string_view op, uint8_t addr_width,
                                SdtArg& a) {
  if (!parts[0].empty()) {
    if (parts[0].front() != '%') return fmt::format("malformed base register in '{}'", op);
    auto r = x86_register(parts[0].substr(1));
    if (!r || r->width != addr_width || r->shift) return fmt::format("unsupported base register in '{}'", op);
    a.base = r->slot;
  }
  if (parts.size() >= 2 && !parts[1].empty()) {
    if (parts[1].front() != '%') return fmt::format("malformed index register in '{}'", op);
    auto r = x86_register(parts[1].substr(1));
    if (!r || r->width != addr_width || r->shift || r->slot == RIP) return fmt::format("unsupported index register in '{}'", op);
    a.index = r->slot;
  }
  if (parts.size() == 3) {
    auto s = parse_int(parts[2]);
    if (!s || (*s != 1 && *s != 2 && *s != 4 && *s != 8)) return fmt::format("bad scale in '{}'", op);
    a.scale = static_cast<uint8_t>(*s);
  }
  return {};
}

// x86-64 operand (AT&T syntax as gas prints a "nor" operand).
std::string parse_x86_operand(std::string_view op, SdtArg& a, const SymbolResolver& resolve, bool i386) {
  const uint8_t addr_width = i386 ? 4 : 8;  // address registers: %rsp on x86-64, %esp on i386
  if (op.empty()) return "empty operand";
  if (op.front() == '%') {
    auto r = x86_register(op.substr(1));
    if (!r) return fmt::format("unknown register '{}'", op);
    if (r->slot == RIP) return "the instruction pointer as a value is not supported";
    a.kind = ArgKind::Reg;
    a.base = r->slot;
    a.shift = r->shift;
    if (r->width < a.size) a.size = r->width;  // "8@%eax" means the 32-bit register
    return {};
  }
  if (op.front() == '$') {
    auto v = parse_int(op.substr(1), /*bit_pattern=*/true);
    if (v.status == ParsedInt::kOutOfRange) return too_big("constant", op);
    if (!v) return fmt::format("constant '{}' is not a number", op);
    a.kind = ArgKind::Imm;
    a.disp = *v;
    return {};
  }
  // disp(base,index,scale): everything before '(' is the displacement, which
  // may be a number, a symbol, or symbol+number / number+symbol.
  size_t lp = op.find('(');
  if (lp == std::string_view::npos || op.back() != ')') {
    // A bare number or symbol is an absolute memory operand.
    lp = op.size();
  }
  std::string_view disp_text = trim(op.substr(0, lp));
  std::string_view inner = lp < op.size() ? op.substr(lp + 1, op.size() - lp - 2) : std::string_view{};
  std::vector<std::string_view> parts;
  if (lp < op.size()) {
    size_t start = 0;
    while (true) {
      size_t c = inner.find(',', start);
      parts.push_back(trim(inner.substr(start, c == std::string_view::npos ? std::string_view::npos : c - start)));
      if (c == std::string_view::npos) break;
      start = c + 1;
    }
    if (parts.size() > 3) return fmt::format("malformed memory operand '{}'", op);
  }
  // Displacement: split on + and - between terms.
  int64_t disp = 0;
  std::string sym;
  if (std::string why = parse_x86_displacement(disp_text, op, disp, sym); !why.empty()) return why;
  a.disp = disp;
  if (!parts.empty() && parts[0] == "%rip") {
    if (parts.size() != 1) return fmt::format("malformed rip-relative operand '{}'", op);
    if (sym.empty()) return fmt::format("rip-relative operand without a symbol '{}'", op);
    if (!resolve) return fmt::format("no symbol table to resolve '{}'", sym);
    std::string why;
    auto addr = resolve(sym, why);
    if (!addr) return fmt::format("cannot resolve symbol '{}'{}{}", sym, why.empty() ? "" : ": ", why);
    a.kind = ArgKind::RipMem;
    a.symbol = sym;
    a.sym_addr = *addr;
    // The link-time address (the caller makes it ip-relative), wrapping as
    // the CPU's address arithmetic does.
    a.disp = static_cast<int64_t>(*addr + static_cast<uint64_t>(disp));
    return {};
  }
  if (!sym.empty()) return fmt::format("absolute symbol operand '{}' is not supported", op);
  a.kind = ArgKind::Mem;
  if (parts.empty()) return fmt::format("absolute memory operand '{}' is not supported", op);
  if (!fits_memory_offset(disp))
    return fmt::format("displacement {} in '{}' is larger than the 32 bits x86 encodes", disp, op);
  if (std::string why = parse_x86_registers(parts, op, addr_width, a); !why.empty()) return why;
  if (a.base == kNoReg && a.index == kNoReg) return fmt::format("memory operand without registers '{}'", op);
  return {};
}

std::optional<uint8_t> aarch64_register(std::string_view n) {
  if (n == "sp") return 31;
  if (n == "pc") return 32;
  if (n == "fp") return 29;
  if (n == "lr") return 30;
  if (n.size() >= 2 && (n[0] == 'x' || n[0] == 'w')) {
    auto v = parse_int(n.substr(1));
    if (v && *v >= 0 && *v <= 30 && std::isdigit(static_cast<unsigned char>(n[1]))) return static_cast<uint8_t>(*v);
  }
  return std::nullopt;
}

std::string parse_aarch64_operand(std::string_view op, SdtArg& a) {
  if (op.empty()) return "empty operand";
  if (op.front() == '[') {
    if (op.back() != ']') return fmt::format("malformed memory operand '{}'", op);
    std::string_view in = op.substr(1, op.size() - 2);
    size_t c = in.find(',');
    auto r = aarch64_register(trim(in.substr(0, c)));
    if (!r) return fmt::format("unknown register in '{}'", op);
    a.kind = ArgKind::Mem;
    a.base = *r;
    if (c != std::string_view::npos) {
      std::string_view d = trim(in.substr(c + 1));
      if (!d.empty() && d.front() == '#') d.remove_prefix(1);
      auto v = parse_int(d);
      if (v.status == ParsedInt::kOutOfRange) return too_big("offset", op);
      if (!v) return fmt::format("malformed offset in '{}'", op);
      if (!fits_memory_offset(*v)) return fmt::format("offset {} in '{}' is out of range for a memory operand", *v, op);
      a.disp = *v;
    }
    return {};
  }
  if (auto r = aarch64_register(op)) {
    a.kind = ArgKind::Reg;
    a.base = *r;
    if (op[0] == 'w' && a.size > 4) a.size = 4;
    return {};
  }
  std::string_view num = op;
  if (num.front() == '#') num.remove_prefix(1);
  auto v = parse_int(num, /*bit_pattern=*/true);
  if (v) {
    a.kind = ArgKind::Imm;
    a.disp = *v;
    return {};
  }
  if (v.status == ParsedInt::kOutOfRange) return too_big("constant", op);
  return fmt::format("unsupported operand '{}'", op);
}

}  // namespace

std::optional<X86Reg> x86_register(std::string_view name) {
  for (const auto& r : kX86Regs)
    if (r.name == name) return r.reg;
  return std::nullopt;
}

std::vector<std::string> split_sdt_args(std::string_view spec) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : spec) {
    if (c == '[') ++depth;
    if (c == ']' && depth > 0) --depth;
    if (c == ' ' && depth == 0) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
      continue;
    }
    cur.push_back(c);
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

ParsedArgs parse_sdt_args(std::string_view spec, uint16_t machine, const SymbolResolver& resolve) {
  ParsedArgs out;
  spec = trim(spec);
  if (spec.empty() || spec.front() == ':') return out;  // old-style notes: no arguments
  for (const auto& text : split_sdt_args(spec)) {
    SdtArg a;
    a.text = text;
    std::string_view s = text;
    // [-]SIZE[f]@ prefix; very old notes omit it (then 8 bytes unsigned).
    size_t at = s.find('@');
    std::string_view op = s;
    if (at != std::string_view::npos) {
      std::string_view sz = s.substr(0, at);
      op = s.substr(at + 1);
      if (!sz.empty() && sz.front() == '-') {
        a.is_signed = true;
        sz.remove_prefix(1);
      }
      if (!sz.empty() && sz.back() == 'f') {
        a.is_float = true;
        sz.remove_suffix(1);
      }
      auto n = parse_int(sz);
      if (!n || (*n != 1 && *n != 2 && *n != 4 && *n != 8) || sz.empty() || sz.front() == '+' ||
          sz.front() == '-') {
        out.error = fmt::format("argument '{}': bad size", text);
        return out;
      }
      a.size = static_cast<uint8_t>(*n);
      if (a.is_float && a.size != 4 && a.size != 8) {
        out.error = fmt::format("argument '{}': float of {} bytes", text, a.size);
        return out;
      }
    }
    std::string why;
    if (machine == kMachineX86_64 || machine == kMachineI386)
      why = parse_x86_operand(op, a, resolve, machine == kMachineI386);
    else if (machine == kMachineAarch64)
      why = parse_aarch64_operand(op, a);
    else
      why = fmt::format("argument specs of ELF machine {} are not supported", machine);
    if (!why.empty()) {
      out.error = fmt::format("argument '{}': {}", text, why);
      return out;
    }
    out.args.push_back(std::move(a));
  }
  if (out.args.size() > 12) out.error = fmt::format("{} arguments (at most 12 are supported)", out.args.size());
  return out;
}

}  // namespace sonde::probe
