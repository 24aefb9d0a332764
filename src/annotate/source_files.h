// Source files' lines for interleaving, read once per file. A file that
// cannot be read (moved, built elsewhere) gives no text: the listing then
// shows the file and line number only.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace sonde::annotate {

class SourceFiles {
 public:
  // Line `line` (1-based) of `path`, without its leading blanks; nullptr
  // when the file or the line is not there.
  const std::string* line(const std::string& path, uint32_t line);

 private:
  std::map<std::string, std::vector<std::string>, std::less<>> files_;
};

}  // namespace sonde::annotate
