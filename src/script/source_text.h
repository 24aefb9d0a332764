// The lines of source files, for script -F srccode (perf's
// find_sourceline): each file read once, then any line by number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sonde::script {

class SourceText {
 public:
  // Line `line` (1-based) of `path` without its newline; nullopt when the
  // file cannot be read (a regular file only) or has no such line.
  std::optional<std::string_view> line(const std::string& path, uint32_t line);

 private:
  struct File {
    bool readable = false;
    std::string text;
    std::vector<size_t> starts;  // where each line begins
  };
  std::unordered_map<std::string, File> files_;
};

}  // namespace sonde::script
