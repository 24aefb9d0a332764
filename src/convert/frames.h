// Frames as the stack-oriented formats (folded, speedscope, HTML) show them:
// one frame per (display name, object), so the many Profile functions that
// carry the same name (inline copies, unresolved addresses of one object)
// become one box in a flame graph. pprof does not use this: it keeps the
// Profile's functions and addresses as they are.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/profile.h"

namespace sonde::convert {

struct Frame {
  std::string_view name;  // demangled name, or "[unknown]"
  std::string_view dso;   // object path ("" when unknown)
  std::string_view build_id;  // the object's, hex ("" when unknown)
  std::string_view file;  // source file when known
  bool kernel = false;
  bool resolved = false;
};

class FrameTable {
 public:
  explicit FrameTable(const analysis::Profile& p);

  const std::vector<Frame>& frames() const { return frames_; }
  // Frames of one location, outermost first (inline frames expanded).
  // Appends to `out`.
  void location_frames(uint32_t location, std::vector<uint32_t>& out) const;
  // The same with each frame's source line (0 when unknown) in `lines`.
  void location_frame_lines(uint32_t location, std::vector<uint32_t>& out, std::vector<uint32_t>& lines) const;
  // Frames of a stack (leaf node of the prefix tree), root first. Clears `out`.
  void stack_frames(uint32_t leaf, std::vector<uint32_t>& out) const;

 private:
  const analysis::Profile& p_;
  std::vector<Frame> frames_;
  std::vector<uint32_t> of_function_;  // Profile function id -> frame id
  mutable std::vector<uint32_t> locs_;  // scratch for stack_frames
};

// Basename of a path ("" stays "").
std::string_view base_name(std::string_view path);

}  // namespace sonde::convert
