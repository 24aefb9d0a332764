// How `sonde diff` matches objects between two recordings: by file name,
// and by build-id where the names differ (recordings of one binary made on
// two machines, installed under other paths or names).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

#include "analysis/profile.h"

namespace sonde::diff {

class ObjectKeys {
 public:
  ObjectKeys(const analysis::Profile& base, const analysis::Profile& now);
  // The name an object of NEW is matched under: BASE's name for the same
  // build-id, else its own file name. BASE's objects keep their names.
  std::string_view new_key(std::string_view name, std::string_view build_id) const;

 private:
  std::unordered_map<std::string, std::string> base_name_of_build_id_;
};

// An object's file name ("[kernel.kallsyms]" and "[vdso]" stay as they are).
std::string_view file_name(std::string_view path);

}  // namespace sonde::diff
