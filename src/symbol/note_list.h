// One-line notes for the user, each kept once in the order first seen
// (debuginfod down, a corrupt cache entry, an object not found). The
// Symbolizer gathers them while it works; the command prints them once.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "util/mapped_path.h"

namespace sonde {

class NoteList {
 public:
  void add(std::string line) {
    replace_control_chars(line);  // a path in the note may hold any byte
    if (seen_.insert(line).second) lines_.push_back(std::move(line));
  }
  const std::vector<std::string>& lines() const { return lines_; }

 private:
  std::vector<std::string> lines_;
  std::unordered_set<std::string> seen_;
};

}  // namespace sonde
