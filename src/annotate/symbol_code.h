// Where a symbol's machine code comes from: its object file (found by
// build-id as the symbolizer finds it), the kernel's (a vmlinux given with
// -k, else /proc/kcore or a copy of it), or a jitdump (the code bytes each
// JIT_CODE_LOAD carries). A separate debug file has no code: it only names
// data objects and gives lines.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "annotate/kcore_reader.h"
#include "annotate/sample_hists.h"
#include "elf/symbol_table.h"
#include "symbol/object_locator.h"
#include "symbol/symbolizer.h"

namespace sonde::annotate {

struct SymbolCode {
  std::span<const uint8_t> mapped;  // into a file kept open by the finder
  std::vector<uint8_t> owned;       // bytes read for this symbol (kcore)
  std::string path;                 // the object the header names
  const ElfFile* names = nullptr;   // data object names (nullptr: none)
  std::span<const uint8_t> bytes() const { return owned.empty() ? mapped : std::span<const uint8_t>(owned); }
};

// Where an object was looked for: "the build-id cache ~/.debug,
// /proc/PID/root/PATH, PATH" (what ObjectLocator::find_symbols tries).
std::string places_looked(const std::string& dso, const BuildId& build_id, uint32_t pid, const BuildIdCache* cache);

struct CodeOptions {
  std::string kcore_path = "/proc/kcore";  // read when no vmlinux is given
  bool kcore_given = false;  // a copy named by the user: no check that it is the running kernel's
};

class CodeFinder {
 public:
  CodeFinder(Symbolizer& symbolizer, CodeOptions opts);
  ~CodeFinder();
  // Throws sonde::Error (runtime, one line) when there is no code to read:
  // object not found (and where it looked), build-id mismatch, a kernel
  // with neither vmlinux nor kcore, a symbol without bytes.
  SymbolCode code_for(const SymbolHist& h);
  // The -k vmlinux's symbols, with their ELF sizes; nullptr without -k or
  // when it cannot be read (code_for then says why).
  const SymbolTable* vmlinux_symbols();

 private:
  SymbolCode object_code(const SymbolHist& h);
  SymbolCode kernel_code(const SymbolHist& h);
  SymbolCode jit_code(const SymbolHist& h);
  const KcoreReader& kcore(const SymbolHist& h);
  const ElfFile& vmlinux(const SymbolHist& h);

  Symbolizer& sym_;
  CodeOptions opts_;
  NoteList notes_;
  std::unique_ptr<BuildIdCache> cache_;
  std::unique_ptr<ObjectLocator> locator_;
  std::map<std::string, LocatedObject> binaries_;  // by build-id, else path
  std::unique_ptr<ElfFile> vmlinux_;
  std::string vmlinux_error_;
  std::unique_ptr<SymbolTable> vmlinux_symbols_;  // their sizes (the kernel's table has none)
  std::unique_ptr<KcoreReader> kcore_;
  std::string kcore_error_;                       // why kcore cannot be read ("" until tried)
  std::map<std::string, std::string> jit_files_;  // a jitdump's bytes, by the file read
};

}  // namespace sonde::annotate
