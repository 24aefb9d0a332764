#include "script/insn_bytes.h"

#include "elf/build_id.h"
#include "util/mapped_path.h"

namespace sonde::script {

std::span<const uint8_t> InsnBytes::at(const analysis::Frame& frame) {
  if (frame.kernel || !frame.map || !length_) return {};
  const std::string path(frame.map->path);
  if (classify_mapped_path(path) != MappedPath::kFile) return {};
  auto [it, fresh] = files_.try_emplace(path);
  if (fresh) {
    it->second = open_regular_file(path.c_str());
    // Another build of the object than the one recorded: its bytes would
    // be another program's, so none are printed.
    const BuildId& recorded = frame.map->build_id;
    if (it->second && !recorded.empty() && read_build_id(it->second.get()) != recorded) it->second.reset();
  }
  if (!it->second) return {};
  const ssize_t n = ::pread(it->second.get(), bytes_, sizeof bytes_, static_cast<off_t>(frame.file_offset));
  if (n <= 0) return {};
  const size_t len = length_(std::span<const uint8_t>(bytes_, static_cast<size_t>(n)));
  return len <= static_cast<size_t>(n) ? std::span<const uint8_t>(bytes_, len) : std::span<const uint8_t>();
}

}  // namespace sonde::script
