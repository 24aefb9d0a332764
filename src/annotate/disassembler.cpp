#include "annotate/disassembler.h"

#include <capstone/capstone.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>

#include "util/error.h"

namespace sonde::annotate {

struct Disassembler::Impl {
  csh handle = 0;
  cs_insn* insn = nullptr;
  Syntax syntax = Syntax::kAtt;
};

Disassembler::Disassembler(Syntax syntax) : impl_(std::make_unique<Impl>()) {
  impl_->syntax = syntax;
  if (cs_err e = cs_open(CS_ARCH_X86, CS_MODE_64, &impl_->handle); e != CS_ERR_OK)
    throw_runtime("capstone: cannot open an x86-64 disassembler: {}", cs_strerror(e));
  cs_option(impl_->handle, CS_OPT_SYNTAX, syntax == Syntax::kAtt ? CS_OPT_SYNTAX_ATT : CS_OPT_SYNTAX_INTEL);
  cs_option(impl_->handle, CS_OPT_DETAIL, CS_OPT_ON);  // groups and operands: branches, calls
  impl_->insn = cs_malloc(impl_->handle);
}

Disassembler::~Disassembler() {
  if (impl_->insn) cs_free(impl_->insn, 1);
  cs_close(&impl_->handle);
}

namespace {

// capstone writes "a, b"; objdump (and so perf) "a,b".
std::string objdump_operands(const char* ops) {
  std::string out;
  for (const char* p = ops; *p; ++p) {
    out += *p;
    if (*p == ',' && p[1] == ' ') ++p;
  }
  return out;
}

// objdump writes every displacement and immediate in hex ("$0x0",
// "-0x8(%rbp)"); capstone writes those below 10 in decimal. Scales
// ("(%rax,%rbx,4)") and registers ("%st(1)") stay as they are.
std::string hex_numbers(const std::string& ops) {
  std::string out;
  int depth = 0;
  bool operand_start = true;
  for (size_t i = 0; i < ops.size();) {
    char c = ops[i];
    bool number_here = depth == 0 && (std::isdigit(static_cast<unsigned char>(c)) != 0) &&
                       (operand_start || (i > 0 && (ops[i - 1] == '$' || ops[i - 1] == '-')));
    if (number_here && !(c == '0' && i + 1 < ops.size() && ops[i + 1] == 'x')) {
      size_t end = i;
      while (end < ops.size() && std::isdigit(static_cast<unsigned char>(ops[end]))) ++end;
      if (end - i > 18) {  // not a number capstone writes in decimal: keep it
        out.append(ops, i, end - i);
      } else {
        out += fmt::format("{:#x}", std::stoull(ops.substr(i, end - i)));
      }
      i = end, operand_start = false;
      continue;
    }
    if (c == '(') ++depth;
    if (c == ')') --depth;
    operand_start = depth == 0 && c == ',';
    if (c == '$' || c == '-' || c == '*') operand_start = operand_start || (i == 0);
    out += c;
    ++i;
  }
  return out;
}

// objdump leaves the size suffix out when a register operand gives the
// size ("mov %rsp,%rbp"); capstone always writes it ("movq").
std::string objdump_mnemonic(const cs_insn& in) {
  static const char* const kBase[] = {"mov", "add", "sub", "and", "or", "xor", "cmp", "test", "push", "pop", "lea",
                                      "imul", "shr", "shl", "sar", "sal", "inc", "dec", "neg", "not", "adc", "sbb",
                                      "xchg", "call", "jmp", "ret", "movabs", "div", "idiv", "mul", "bsf", "bsr"};
  std::string m = in.mnemonic;
  if (m.size() < 3 || std::string_view("bwlq").find(m.back()) == std::string_view::npos) return m;
  std::string base = m.substr(0, m.size() - 1);
  if (std::find(std::begin(kBase), std::end(kBase), base) == std::end(kBase) && !base.starts_with("cmov")) return m;
  if (base == "ret" || base == "call" || base == "jmp") return base;
  const cs_x86& x = in.detail->x86;
  for (uint8_t i = 0; i < x.op_count; ++i)
    if (x.operands[i].type == X86_OP_REG) return base;
  return m;
}

std::optional<uint64_t> rip_relative(const cs_insn& in) {
  const cs_x86& x = in.detail->x86;
  for (uint8_t i = 0; i < x.op_count; ++i)
    if (x.operands[i].type == X86_OP_MEM && x.operands[i].mem.base == X86_REG_RIP)
      return in.address + in.size + uint64_t(x.operands[i].mem.disp);
  return std::nullopt;
}

// A direct branch's destination: its one immediate operand.
std::optional<uint64_t> direct_target(const cs_insn& in) {
  const cs_x86& x = in.detail->x86;
  if (x.op_count == 1 && x.operands[0].type == X86_OP_IMM) return uint64_t(x.operands[0].imm);
  return std::nullopt;
}

}  // namespace

std::vector<Instruction> Disassembler::disassemble(std::span<const uint8_t> code, uint64_t addr) const {
  std::vector<Instruction> out;
  const uint8_t* p = code.data();
  size_t left = code.size();
  uint64_t at = addr;
  while (left > 0) {
    Instruction insn;
    if (cs_disasm_iter(impl_->handle, &p, &left, &at, impl_->insn)) {
      const cs_insn& in = *impl_->insn;
      insn.addr = in.address;
      insn.size = in.size;
      const bool att = impl_->syntax == Syntax::kAtt;
      insn.mnemonic = att ? objdump_mnemonic(in) : std::string(in.mnemonic);
      insn.is_call = cs_insn_group(impl_->handle, &in, CS_GRP_CALL);
      insn.is_jump = cs_insn_group(impl_->handle, &in, CS_GRP_JUMP);
      if (insn.is_call || insn.is_jump) insn.target = direct_target(in);
      if (!insn.target) insn.operands = att ? hex_numbers(objdump_operands(in.op_str)) : objdump_operands(in.op_str);
      insn.rip_target = rip_relative(in);
      insn.bytes.assign(in.bytes, in.bytes + in.size);
    } else {  // capstone stops at bytes it cannot decode: step over one
      insn.addr = at;
      insn.size = 1;
      insn.mnemonic = "(bad)";
      insn.bad = true;
      insn.bytes.assign(p, p + 1);
      ++p, --left, ++at;
    }
    out.push_back(std::move(insn));
  }
  return out;
}

std::string instruction_text(const Instruction& insn, const std::string& target_text) {
  const std::string& ops = insn.target ? target_text : insn.operands;
  if (ops.empty()) return insn.mnemonic;
  return fmt::format("{:<6} {}", insn.mnemonic, ops);
}

}  // namespace sonde::annotate
