// Append-only string storage with stable addresses: names that are not backed
// by a mapped ELF string table (PLT names, kallsyms, perf maps, demangled
// names) live here so lookups can hand out string_views without allocating.
#pragma once

#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace sonde {

class StringArena {
 public:
  std::string_view add(std::string_view s) {
    if (s.size() > kBlock / 4) {
      // Large strings get their own block so they do not waste a shared one.
      big_.push_back(std::make_unique<char[]>(s.size()));
      std::memcpy(big_.back().get(), s.data(), s.size());
      return {big_.back().get(), s.size()};
    }
    if (blocks_.empty() || used_ + s.size() > kBlock) {
      blocks_.push_back(std::make_unique<char[]>(kBlock));
      used_ = 0;
    }
    char* p = blocks_.back().get() + used_;
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    used_ += s.size();
    return {p, s.size()};
  }

 private:
  static constexpr size_t kBlock = 64 * 1024;
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::vector<std::unique_ptr<char[]>> big_;
  size_t used_ = 0;
};

}  // namespace sonde
