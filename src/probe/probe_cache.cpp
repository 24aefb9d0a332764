#include "probe/probe_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cache/buildid_cache.h"
#include "probe/probes_file.h"
#include "util/error.h"
#include "util/fs.h"

namespace sonde::probe {
namespace fs = std::filesystem;
namespace {

constexpr const char* kSondeFile = "sonde-probes";
constexpr const char* kIndexFile = ".sonde/sdt-index";

// Kernel fetcharg register names for x86-64 pt_regs slots.
const char* perf_reg_name(uint8_t slot) {
  static const char* names[] = {"r15", "r14", "r13", "r12", "bp", "bx", "r11", "r10", "r9", "r8", "ax",
                                "cx",  "dx",  "si",  "di",  "orig_ax", "ip", "cs", "flags", "sp", "ss"};
  return slot < sizeof names / sizeof names[0] ? names[slot] : nullptr;
}

}  // namespace

bool is_safe_abs_path(const std::string& p) { return is_safe_cache_path(p); }

bool is_hex_build_id(const std::string& s) {
  if (s.size() < 2 || s.size() > 40 || s.size() % 2) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) && !std::isupper(static_cast<unsigned char>(c)); });
}

ProbeCache::ProbeCache(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string ProbeCache::default_root(const std::string& cli_dir) { return BuildIdCache::default_root(cli_dir); }

std::optional<std::string> ProbeCache::entry_dir(const std::string& abs_path, const std::string& bid) const {
  if (!is_safe_abs_path(abs_path) || !is_hex_build_id(bid)) return std::nullopt;
  return root_ + abs_path + "/" + bid;
}

std::string perf_probes_text(const SdtFile& f) {
  std::string out;
  std::map<std::string, std::vector<const SdtSite*>> by_name;
  std::vector<std::string> order;
  for (const auto& s : f.sites) {
    std::string key = s.provider + ":" + s.name;
    if (!by_name.count(key)) order.push_back(key);
    by_name[key].push_back(&s);
  }
  for (const auto& key : order) {
    const auto& sites = by_name[key];
    out += fmt::format("%sdt_{}:{}={}\n", sites[0]->provider, sites[0]->name, sites[0]->name);
    for (const SdtSite* s : sites) {
      std::string line = fmt::format("p:sdt_{}/{} {}:0x{:x}", s->provider, s->name, f.path, s->pc_offset);
      if (s->has_semaphore()) line += fmt::format("(0x{:x})", s->sem_offset);
      int n = 0;
      for (const auto& a : s->parsed.args) {
        ++n;
        if (f.machine != kMachineX86_64) break;
        std::string type = fmt::format("{}{}", a.is_signed ? 's' : 'u', a.size * 8);
        const char* base = a.base != kNoReg ? perf_reg_name(a.base) : nullptr;
        if (a.kind == ArgKind::Reg && base && !a.shift)
          line += fmt::format(" arg{}=%{}:{}", n, base, type);
        else if (a.kind == ArgKind::Mem && base && a.index == kNoReg)
          line += fmt::format(" arg{}={:+d}(%{}):{}", n, a.disp, base, type);
      }
      out += line + "\n";
    }
  }
  return out;
}

void ProbeCache::store(const SdtFile& f) {
  if (f.build_id.empty()) return;
  auto dir = entry_dir(f.path, f.build_id.hex());
  if (!dir) return;
  nlohmann::json j;
  j["version"] = 1;
  j["path"] = f.path;
  j["build_id"] = f.build_id.hex();
  j["machine"] = f.machine;
  j["elf64"] = f.elf64;
  j["needed"] = f.needed;
  j["runpath"] = f.runpath;
  nlohmann::json sites = nlohmann::json::array();
  nlohmann::json symbols = nlohmann::json::object();
  for (const auto& s : f.sites) {
    sites.push_back({{"provider", s.provider}, {"name", s.name}, {"args", s.args}, {"pc", s.pc},
                     {"base", s.base}, {"semaphore", s.semaphore}, {"pc_offset", s.pc_offset},
                     {"sem_offset", s.sem_offset}});
    for (const auto& a : s.parsed.args)
      if (a.kind == ArgKind::RipMem && !a.symbol.empty()) symbols[a.symbol] = a.sym_addr;
  }
  j["symbols"] = symbols;
  j["sites"] = std::move(sites);
  // The entry's folder and its .build-id link (perf finds entries through
  // it; an existing one is kept) are the build-id cache's to lay out.
  BuildIdCache layout(root_);
  layout.make_entry_dir(f.path, f.build_id);
  write_file_atomic(*dir + "/" + kSondeFile, j.dump() + "\n");
  // perf probe --cache definitions (`#` entries) in the same file stay.
  // SDT entries first, as perf's buildid-cache writes them.
  auto file_entries = parse_probes_file(perf_probes_text(f));
  for (auto& e : read_probes_file(*dir))
    if (!e.sdt) file_entries.push_back(std::move(e));
  write_probes_file(*dir, file_entries);
  std::string hex = f.build_id.hex();
  try {
    layout.link_entry_if_absent(f.path, f.build_id);
  } catch (const Error&) {
    // best effort, as before: a racing writer made it, or a link cannot be made
  }
  // Index: replace this path's lines.
  auto entries = index();
  std::erase_if(entries, [&](const IndexEntry& e) { return e.path == f.path; });
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& s : f.sites)
    if (seen.emplace(s.provider, s.name).second) entries.push_back({s.provider, s.name, hex, f.path});
  write_index(entries);
}

void ProbeCache::write_index(const std::vector<IndexEntry>& entries) {
  std::string text;
  for (const auto& e : entries) text += e.provider + "\t" + e.name + "\t" + e.build_id + "\t" + e.path + "\n";
  make_dirs(root_ + "/.sonde");
  write_file_atomic(root_ + "/" + kIndexFile, text);
}

std::vector<IndexEntry> ProbeCache::index() const {
  std::vector<IndexEntry> out;
  auto text = read_small_file(root_ + "/" + kIndexFile);
  if (!text) return out;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    IndexEntry e;
    std::istringstream ls(line);
    if (!std::getline(ls, e.provider, '\t') || !std::getline(ls, e.name, '\t') || !std::getline(ls, e.build_id, '\t') ||
        !std::getline(ls, e.path))
      continue;
    if (!is_hex_build_id(e.build_id) || !is_safe_abs_path(e.path)) continue;  // never trust the file
    out.push_back(std::move(e));
  }
  return out;
}

std::optional<SdtFile> ProbeCache::load(const std::string& path, const std::string& bid) const {
  auto dir = entry_dir(path, bid);
  if (!dir) return std::nullopt;
  auto text = read_small_file(*dir + "/" + kSondeFile);
  if (!text) return std::nullopt;
  try {
    auto j = nlohmann::json::parse(*text);
    if (j.at("version").get<int>() != 1) return std::nullopt;
    SdtFile f;
    f.path = path;
    auto id = BuildId::from_hex(j.at("build_id").get<std::string>());
    if (!id || id->hex() != bid) return std::nullopt;
    f.build_id = *id;
    f.machine = j.at("machine").get<uint16_t>();
    f.elf64 = j.at("elf64").get<bool>();
    f.needed = j.at("needed").get<std::vector<std::string>>();
    f.runpath = j.value("runpath", std::vector<std::string>{});
    std::map<std::string, uint64_t> symbols = j.at("symbols").get<std::map<std::string, uint64_t>>();
    SymbolResolver resolve = [&](const std::string& name, std::string& why) -> std::optional<uint64_t> {
      auto it = symbols.find(name);
      if (it == symbols.end()) {
        why = "not in the symbol table";
        return std::nullopt;
      }
      return it->second;
    };
    for (const auto& js : j.at("sites")) {
      SdtSite s;
      s.provider = js.at("provider").get<std::string>();
      s.name = js.at("name").get<std::string>();
      s.args = js.at("args").get<std::string>();
      s.pc = js.at("pc").get<uint64_t>();
      s.base = js.at("base").get<uint64_t>();
      s.semaphore = js.at("semaphore").get<uint64_t>();
      s.pc_offset = js.at("pc_offset").get<uint64_t>();
      s.sem_offset = js.at("sem_offset").get<uint64_t>();
      s.parsed = parse_sdt_args(s.args, f.machine, resolve);
      f.sites.push_back(std::move(s));
    }
    return f;
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged cache entry is rescanned, not fatal
  }
}

SdtFile ProbeCache::get(const std::string& path, bool do_store, SdtArgs args) {
  auto rp = real_path(path);
  if (!rp) throw_usage("sdt: cannot open {}: {}", path, errno_text(errno));
  // Reading the notes again is faster than parsing our JSON (1000 sites:
  // ~1.5 vs ~4 ms; equal for a few sites), so the cache entry is not read
  // here; it is written when missing, for the index (names of binaries
  // the target does not map) and for perf.
  SdtFile f = scan_sdt_file(*rp, args);
  if (do_store && args == SdtArgs::Parse && !f.sites.empty() && !f.build_id.empty()) {
    auto dir = entry_dir(f.path, f.build_id.hex());
    if (dir && ::access((*dir + "/" + kSondeFile).c_str(), F_OK) != 0) store(f);
  }
  return f;
}

SdtFile ProbeCache::add(const std::string& path) {
  auto rp = real_path(path);
  if (!rp) throw_usage("sdt: cannot open {}: {}", path, errno_text(errno));
  SdtFile f = scan_sdt_file(*rp);
  if (f.build_id.empty()) throw_runtime("sdt: {} has no build-id; it cannot be cached", *rp);
  store(f);
  return f;
}

size_t ProbeCache::remove(const std::string& what) {
  auto entries = index();
  std::set<std::pair<std::string, std::string>> victims;  // (path, build-id)
  if (is_hex_build_id(what)) {
    for (const auto& e : entries)
      if (e.build_id == what) victims.emplace(e.path, e.build_id);
  }
  if (victims.empty()) {
    std::string p = what;
    if (auto rp = real_path(what)) p = *rp;
    for (const auto& e : entries)
      if (e.path == p) victims.emplace(e.path, e.build_id);
  }
  for (const auto& [p, bid] : victims) {
    if (auto dir = entry_dir(p, bid)) {
      std::error_code ec;
      fs::remove(*dir + "/" + kSondeFile, ec);
      // perf probe --cache definitions (`#` entries) stay.
      auto kept = read_probes_file(*dir);
      std::erase_if(kept, [](const ProbesFileEntry& e) { return e.sdt; });
      if (kept.empty())
        fs::remove(*dir + "/probes", ec);
      else
        write_probes_file(*dir, kept);
    }
  }
  std::erase_if(entries, [&](const IndexEntry& e) { return victims.count({e.path, e.build_id}) != 0; });
  if (!victims.empty()) write_index(entries);
  return victims.size();
}

}  // namespace sonde::probe
