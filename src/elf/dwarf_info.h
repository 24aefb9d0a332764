// Source lines and inline frames from DWARF through libdw, for one object
// with debug info. Opened lazily by the symbolizer, only when asked for
// srcline or inline frames.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct Dwarf;

namespace sonde {

class ElfFile;

struct SourceLine {
  std::string_view file;  // as recorded in the line table (usually absolute)
  uint32_t line = 0;
  uint32_t column = 0;
};

// One inlined call, innermost first: `function` was inlined, and the call
// to it sits at `call_file:call_line` in the next outer function.
struct InlineFrame {
  std::string_view function;  // DW_AT_name, or the linkage name when present
  bool inlined = true;        // false: the function that holds the inlined ones (with_function)
  std::string_view call_file;
  uint32_t call_line = 0;
};

class DwarfInfo {
 public:
  // `file` must contain DWARF (.debug_info) and must outlive this object.
  static std::unique_ptr<DwarfInfo> open(const ElfFile& file, std::string* reason);
  ~DwarfInfo();
  DwarfInfo(const DwarfInfo&) = delete;
  DwarfInfo& operator=(const DwarfInfo&) = delete;

  std::optional<SourceLine> line(uint64_t vaddr) const;
  // Clears `out`, fills inlined frames innermost first; returns their number.
  // `with_function`: then the function that holds them (perf's inline list,
  // which names a frame as DWARF does).
  size_t inline_frames(uint64_t vaddr, std::vector<InlineFrame>& out, bool with_function = false) const;

 private:
  DwarfInfo() = default;
  ::Dwarf* dw_ = nullptr;
};

}  // namespace sonde
