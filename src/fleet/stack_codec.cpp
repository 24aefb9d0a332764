#include "fleet/stack_codec.h"

#include <fmt/format.h>

namespace sonde::fleet {

namespace {

std::string encode_location(const analysis::Profile& p, const analysis::ProfileLocation& loc) {
  const bool has_map = loc.mapping != UINT32_MAX;
  std::string_view path, build_id;
  if (has_map) path = p.str(p.mappings[loc.mapping].path), build_id = p.str(p.mappings[loc.mapping].build_id);
  const auto& fn = p.functions[loc.function];
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{:x}\x1f{:x}\x1f{:x}", loc.kernel ? 1 : 0,
                     has_map ? 1 : 0, path, build_id, p.str(fn.name), p.str(fn.raw_name), fn.resolved ? 1 : 0,
                     p.str(fn.file), loc.address, loc.file_offset, loc.symbol_offset);
}

uint64_t hex(const std::string& s) { return std::strtoull(s.c_str(), nullptr, 16); }

}  // namespace

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == sep) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

uint64_t fnv1a(const void* data, size_t size, uint64_t h) {
  const auto* b = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

std::vector<std::string> encode_stack(const analysis::Profile& p, uint32_t leaf) {
  std::vector<std::string> frames;
  if (leaf == UINT32_MAX) return frames;
  std::vector<uint32_t> locs;
  p.stack_locations(leaf, locs);
  for (uint32_t l : locs) frames.push_back(encode_location(p, p.locations[l]));
  return frames;
}

uint64_t stack_hash(const std::vector<std::string>& frames) {
  uint64_t h = fnv1a("", 0);
  for (const auto& f : frames) {
    h = fnv1a(f.data(), f.size(), h);
    h = fnv1a(&kFrameSep, 1, h);
  }
  return h;
}

uint32_t StackDecoder::location(const std::string& frame) {
  if (auto it = locations_.find(frame); it != locations_.end()) return it->second;
  const auto f = split(frame, kFieldSep);
  if (f.size() < 11) return UINT32_MAX;
  const bool kernel = f[0] == "1";
  analysis::ProfileLocation loc;
  loc.kernel = kernel;
  if (f[1] == "1") {
    auto key = std::make_tuple(f[2], f[3], kernel);
    auto [it, added] = mappings_.emplace(key, uint32_t(p_.mappings.size()));
    if (added) {
      analysis::ProfileMapping m;
      m.path = p_.intern(f[2]);
      m.build_id = f[3].empty() ? 0 : p_.intern(f[3]);
      m.kernel = kernel;
      m.seen = it->second;
      p_.mappings.push_back(m);
    }
    loc.mapping = it->second;
  }
  const bool resolved = f[6] == "1";
  auto fkey = std::make_tuple(f[4], f[5], loc.mapping, resolved, f[7]);
  auto [fit, fadded] = functions_.emplace(fkey, uint32_t(p_.functions.size()));
  if (fadded) {
    analysis::ProfileFunction fn;
    fn.name = p_.intern(f[4]);
    fn.raw_name = p_.intern(f[5]);
    fn.file = p_.intern(f[7]);
    fn.mapping = loc.mapping;
    fn.resolved = resolved;
    p_.functions.push_back(fn);
  }
  loc.function = fit->second;
  loc.address = hex(f[8]);
  loc.file_offset = hex(f[9]);
  loc.symbol_offset = hex(f[10]);
  const uint32_t id = uint32_t(p_.locations.size());
  p_.locations.push_back(std::move(loc));
  locations_.emplace(frame, id);
  return id;
}

uint32_t StackDecoder::add_stack(const std::vector<std::string>& frames) {
  uint32_t parent = UINT32_MAX;
  uint32_t depth = 0;
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    const uint32_t loc = location(*it);
    if (loc == UINT32_MAX) {
      ++bad_frames_;
      continue;
    }
    auto [nit, added] = nodes_.emplace(std::make_pair(parent, loc), uint32_t(p_.nodes.size()));
    if (added) p_.nodes.push_back({parent, loc, depth});
    parent = nit->second;
    ++depth;
  }
  return parent;
}

}  // namespace sonde::fleet
