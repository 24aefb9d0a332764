#include "trace/call_chain_lines.h"

#include <fmt/format.h>

namespace sonde::trace {

namespace {

// perf trace's left alignment of a chain (sample__fprintf_callchain's
// `left_alignment`, 38, plus the one space it prints before each frame).
constexpr int kIndent = 39;

}  // namespace

void CallChainLines::append_frame(const analysis::Frame& f, uint32_t pid, std::string& out) {
  std::string_view dso = f.map ? f.map->name : std::string_view("[unknown]");
  analysis::SymbolName sym = symbols_.symbolize(f, pid);
  if (!sym.dso.empty() && (!f.map || f.map->kernel)) dso = sym.dso;
  symbols_.function_chain(f, pid, chain_);
  if (!sym.name.empty() && !chain_.empty()) {
    for (const InlineFrame& in : chain_)
      fmt::format_to(std::back_inserter(out), "{:{}}{} ({})\n", "", kIndent, in.function,
                     in.function == sym.name ? dso : std::string_view("inlined"));
    return;
  }
  if (!sym.name.empty())
    fmt::format_to(std::back_inserter(out), "{:{}}{} ({})\n", "", kIndent, sym.name, dso);
  else
    fmt::format_to(std::back_inserter(out), "{:{}}[{:#x}] ({})\n", "", kIndent, f.map ? f.file_offset : f.addr, dso);
}

std::string CallChainLines::lines(const format::Sample& s, const analysis::AddressSpace& space) {
  analysis::sample_frames(s, space, frames_, 0);
  std::string out;
  size_t shown = 0;
  for (const analysis::Frame& f : frames_) {
    if (max_stack_ && shown == max_stack_) break;
    append_frame(f, s.pid, out);
    ++shown;
  }
  return out;
}

}  // namespace sonde::trace
