// One symbol's code, disassembled, with its cost per instruction and where
// each instruction came from in the source (DWARF lines and inline scopes:
// an inlined function's instructions name its own file and line, and the
// call sites that brought it in).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "annotate/data_symbols.h"
#include "annotate/disassembler.h"
#include "annotate/sample_hists.h"
#include "annotate/symbol_code.h"
#include "symbol/symbolizer.h"

namespace sonde::annotate {

struct InlineStep {
  std::string function;  // the inlined function
  std::string call_file;
  uint32_t call_line = 0;
  bool operator==(const InlineStep&) const = default;
};

// A source position: file:line, inside these inlined calls (innermost first).
struct SourcePlace {
  std::string file;
  uint32_t line = 0;
  std::vector<InlineStep> inlined;
  bool operator==(const SourcePlace&) const = default;
};

struct AnnotatedInsn {
  Instruction insn;
  std::string text;  // as objdump prints it, targets named <sym+0xOFF>
  Hits self;
  Hits children;     // samples below this call (call instructions only)
  int place = -1;    // index into AnnotatedSymbol::places; -1: no line
};

struct AnnotatedSymbol {
  const SymbolHist* hist = nullptr;
  std::string object_path;  // the file the code was read from
  std::string object_name;  // the object the header names (full path; -P)
  std::vector<AnnotatedInsn> insns;
  std::vector<SourcePlace> places;
};

class Annotator {
 public:
  // `symbolizer` names branch targets and gives the DWARF lines.
  Annotator(Symbolizer& symbolizer, Syntax syntax, CodeOptions code = {});
  ~Annotator();

  // Throws sonde::Error (runtime, one line) when the symbol has no code
  // sonde can read: object not found (and where it looked), build-id
  // mismatch, kernel with neither vmlinux nor kcore, a symbol without bytes.
  AnnotatedSymbol annotate(const SymbolHist& hist, bool with_lines);
  // The -k vmlinux's symbols with their sizes (nullptr without one).
  const SymbolTable* vmlinux_symbols() { return code_.vmlinux_symbols(); }

 private:
  std::string target_text(const SymbolHist& hist, const Instruction& insn);
  std::string data_text(const ElfFile* names, const SymbolHist& hist, uint64_t addr);
  void add_places(AnnotatedSymbol& out);

  Symbolizer& sym_;
  Disassembler disasm_;
  CodeFinder code_;
  std::map<const ElfFile*, DataSymbols> data_;  // per file of names, on first use
  uint64_t code_end_ = 0;                       // of the symbol being annotated
};

}  // namespace sonde::annotate
