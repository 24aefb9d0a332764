// A Profile's stacks as self-contained text frames, the unit the store keeps
// once per distinct stack (content-addressed by stack_hash), and back.
// A frame is its fields joined by \x1f: kernel, has-mapping, mapping path,
// mapping build-id, function name, raw name, resolved, source file,
// address, file offset, symbol offset (hex). Frames are leaf first.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/profile.h"

namespace sonde::fleet {

inline constexpr char kFieldSep = '\x1f';
inline constexpr char kFrameSep = '\x1e';

// The frames of stack node `leaf` (UINT32_MAX: none), leaf first.
std::vector<std::string> encode_stack(const analysis::Profile& p, uint32_t leaf);
// 64-bit FNV-1a over the frames and their separators.
uint64_t stack_hash(const std::vector<std::string>& frames);
uint64_t fnv1a(const void* data, size_t size, uint64_t seed = 1469598103934665603ull);

// Rebuilds stacks into a Profile, interning mappings, functions, locations
// and nodes as the profile builder does.
class StackDecoder {
 public:
  explicit StackDecoder(analysis::Profile& p) : p_(p) {}
  // Frames leaf first; returns the leaf node (UINT32_MAX when empty).
  // A frame with too few fields is counted in bad_frames and skipped.
  uint32_t add_stack(const std::vector<std::string>& frames);
  uint64_t bad_frames() const { return bad_frames_; }

 private:
  uint32_t location(const std::string& frame);
  analysis::Profile& p_;
  std::map<std::tuple<std::string, std::string, bool>, uint32_t> mappings_;
  std::map<std::tuple<std::string, std::string, uint32_t, bool, std::string>, uint32_t> functions_;
  std::map<std::string, uint32_t> locations_;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> nodes_;
  uint64_t bad_frames_ = 0;
};

std::vector<std::string> split(const std::string& s, char sep);

}  // namespace sonde::fleet
