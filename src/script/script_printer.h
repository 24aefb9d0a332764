// `sonde script` output: one header line per sample, perf-script-like, then
// one line per frame, then a blank line; FlameGraph's stackcollapse-perf.pl
// reads it.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "format/tracepoint_format.h"
#include "analysis/frame_symbols.h"
#include "analysis/profile_builder.h"
#include "analysis/recording_walker.h"
#include "script/insn_bytes.h"
#include "script/script_fields.h"
#include "script/source_text.h"
#include "util/flat_index.h"

namespace sonde::script {

struct ScriptOptions {
  bool symbols = true;    // false: raw addresses with dso+offset and build-id
  bool build_ids = false;  // append the build-id to each frame
  size_t max_stack = 0;
  bool inline_frames = false;  // also print the functions inlined at each frame
  FieldSelection fields;        // -F: perf's layout of those fields (not enabled: sonde's line)
  bool hide_callchain = false;  // -G: with -F ip, the sampled address only
  bool nanoseconds = false;     // --ns: times with 9 decimals
  // Samples shown: --comm, --pid, --tid, --time (event names unused).
  analysis::ProfileFilter filter;
  // -S: only samples whose sampled address is in one of these symbols (a
  // name, or the symbol's start address as 0x...).
  std::vector<std::string> symbols_shown;
  // perf turns ip and sym on for events with call chains when it reads a
  // pipe (it sees each attr before its samples), not in file mode.
  bool file_mode = false;
  bool show_mmap_events = false;  // MMAP and MMAP2 records, in time order with the samples
  bool show_task_events = false;  // COMM, FORK and EXIT records
  // --header: the text printed once before anything else (asked when the
  // first record arrives, so that the recording's features are known).
  std::function<std::string()> header;
  // -F insn: the length of the instruction the bytes start with (unset: no
  // insn field is printed).
  InstructionLength instruction_length;
};

class ScriptPrinter {
 public:
  // Extra per-sample text (e.g. decoded SDT arguments); return false if none.
  using ExtraFields = std::function<bool(const format::Sample&, std::string&)>;

  ScriptPrinter(const analysis::RecordingWalker& walker, analysis::FrameSymbols* symbols, ScriptOptions options, std::FILE* out);
  ~ScriptPrinter();
  void set_extra_fields(ExtraFields f) { extra_ = std::move(f); }
  void print(const format::Sample& s);
  // A side-band record (any non-sample record, in time order): printed if
  // --show-mmap-events or --show-task-events asks for its type.
  void print_record(const format::RecordView& rec);  // sideband.cpp
  void flush();

 private:
  bool selected(const format::Sample& s);
  void print_header_once();
  // perf script's start of a side-band line (comm, pid/tid, cpu, time).
  void append_sideband_start(const format::RecordView& rec);
  bool sideband_cpu_shown(const format::RecordView& rec) const;
  void print_frame(const analysis::Frame& f, uint32_t pid);
  void print_fields(const format::Sample& s);  // script_fields.cpp
  uint32_t sample_fields(const format::Sample& s) const;
  void append_time(uint64_t time);
  void append_frame_fields(const analysis::Frame& f, uint32_t pid, uint32_t fields, bool in_chain);
  void append_symbol_fields(const analysis::Frame& f, uint32_t pid, uint32_t fields);
  void append_srcline(const analysis::Frame& f, uint32_t pid);
  void append_srccode(const analysis::Frame& f, uint32_t pid, uint32_t tid);
  void append_insn(const analysis::Frame& f);
  // Tracepoint fields or the extra fields (SDT arguments), after `sep`.
  void append_trace(const format::Sample& s, std::string_view sep);
  void format_frame(const analysis::Frame& f, uint32_t pid, fmt::memory_buffer& buf);

  struct FrameKey {
    uint32_t map;
    uint64_t where;
    bool operator==(const FrameKey&) const = default;
  };
  struct FrameKeyHash {
    size_t operator()(const FrameKey& k) const { return static_cast<size_t>(mix64(k.where ^ (uint64_t(k.map) << 44))); }
  };
  FlatIndex<FrameKey, FrameKeyHash> frame_index_;
  std::string frame_text_;  // every distinct frame's lines, one after another
  std::vector<std::pair<size_t, size_t>> frame_spans_;  // (offset, size) in frame_text_, by frame id

  const analysis::RecordingWalker& walker_;
  analysis::FrameSymbols* symbols_;
  ScriptOptions options_;
  std::FILE* out_;
  fmt::memory_buffer buf_;
  std::vector<analysis::Frame> frames_;
  std::string extra_text_;
  std::vector<std::string_view> inlines_;
  bool formats_loaded_ = false;
  std::unordered_map<uint64_t, format::TracepointFormat> formats_;
  ExtraFields extra_;
  size_t event_width_ = 0;  // -F event: the longest event name
  struct LastSource {
    std::string file;
    uint32_t line = 0;
  };
  std::unordered_map<uint32_t, LastSource> last_source_;  // -F srccode: by thread, the line printed last
  SourceText source_text_;
  std::unique_ptr<InsnBytes> insn_bytes_;  // -F insn, when options_.instruction_length is set
  bool header_done_ = false;
};

}  // namespace sonde::script
