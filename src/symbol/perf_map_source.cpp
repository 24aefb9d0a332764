#include <fmt/format.h>

#include "jit/jit_files.h"
#include "symbol/symbol_sources.h"

namespace sonde {

std::unique_ptr<LoadedObject> load_perf_map_source(const std::string& perf_map_dir,
                                                   const std::vector<std::string>& copy_dirs, pid_t pid) {
  auto o = std::make_unique<LoadedObject>();
  std::string file = jit::find_jit_file(fmt::format("{}/perf-{}.map", perf_map_dir, pid), copy_dirs);
  o->info.path = file;
  o->info.kind = ObjectKind::kPerfMap;
  o->info.source = "perf-map";
  o->info.symbol_file = file;
  std::string why;
  if (pid <= 0 || !load_perf_map(file, o->text, o->table, &why)) {
    o->info.reason = Reason::kNotFound;
    o->info.note = pid <= 0 ? "anonymous memory without a pid" : why;
  }
  o->info.symbol_count = o->table.size();
  return o;
}

}  // namespace sonde
