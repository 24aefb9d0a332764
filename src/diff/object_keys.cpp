#include "diff/object_keys.h"

#include "util/mapped_path.h"

namespace sonde::diff {

std::string_view file_name(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

ObjectKeys::ObjectKeys(const analysis::Profile& base, const analysis::Profile& /*now*/) {
  // Pseudo objects ("[kernel.kallsyms]", "[vdso]") have one name everywhere.
  for (const auto& m : base.mappings)
    if (m.build_id && !m.kernel && !is_pseudo_path(base.str(m.path))) base_name_of_build_id_.try_emplace(std::string(base.str(m.build_id)), file_name(base.str(m.path)));
}

std::string_view ObjectKeys::new_key(std::string_view name, std::string_view build_id) const {
  if (!build_id.empty() && !is_pseudo_path(name)) {
    auto it = base_name_of_build_id_.find(std::string(build_id));
    if (it != base_name_of_build_id_.end()) return it->second;
  }
  return file_name(name);
}

}  // namespace sonde::diff
