#include "cfi/table_store.h"

#include <sys/sysmacros.h>

#include <chrono>

#include "cfi/table_compiler.h"
#include "elf/vdso.h"
#include "util/mapped_path.h"
#include "util/proc_maps.h"

namespace sonde::cfi {

TableStore::TableStore(Loader loader, uint32_t max_tables, uint32_t max_rows)
    : loader_(std::move(loader)), max_tables_(max_tables), max_rows_(max_rows) {}

uint32_t TableStore::load(const ElfFile& elf) {
  std::string key = elf.build_id().empty() ? "" : elf.build_id().hex();
  if (!key.empty())
    if (auto it = by_build_id_.find(key); it != by_build_id_.end()) return it->second;
  auto begin = std::chrono::steady_clock::now();
  auto table = compile_table(elf, nullptr);
  totals_.compile_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  if (!table || table->rows.empty()) {
    ++totals_.without_cfi;
    return SONDE_CFI_NO_TABLE;
  }
  totals_.ranges += table->stats.ranges;
  totals_.unsupported += table->stats.unsupported;
  auto index = static_cast<uint32_t>(totals_.tables);
  if (index >= max_tables_ || table->rows.size() > max_rows_ - next_row_) {
    ++totals_.over_bound;
    return SONDE_CFI_NO_TABLE;
  }
  sonde_cfi_table desc{table->base, next_row_, static_cast<uint32_t>(table->rows.size())};
  if (!loader_(index, desc, table->rows)) {
    ++totals_.over_bound;
    return SONDE_CFI_NO_TABLE;
  }
  next_row_ += desc.count;
  ++totals_.tables;
  totals_.rows += desc.count;
  if (!key.empty()) by_build_id_[key] = index;
  return index;
}

const ObjectTable& TableStore::object(const std::string& path, uint64_t dev, uint64_t ino) {
  auto [it, fresh] = by_file_.try_emplace({dev, ino});
  if (!fresh) return it->second;
  ++totals_.objects;
  auto elf = ElfFile::open(path, nullptr);
  if (!elf) {
    ++totals_.without_cfi;
    return it->second;
  }
  it->second.opened = true;
  it->second.loads = elf->load_segments();
  it->second.table = load(*elf);
  return it->second;
}

const ObjectTable& TableStore::vdso(uint64_t len) {
  if (!vdso_) {
    vdso_.emplace();
    std::span<const uint8_t> own = own_vdso();
    auto elf = own.empty() ? nullptr : ElfFile::from_memory({own.begin(), own.end()}, "[vdso]", nullptr);
    ++totals_.objects;
    if (elf) {
      vdso_->opened = true;
      vdso_->loads = elf->load_segments();
      vdso_->table = load(*elf);
    } else {
      ++totals_.without_cfi;
    }
  }
  // A mapping of another length is another ABI's vdso (a 32-bit process's).
  return len == own_vdso().size() ? *vdso_ : no_table_;
}

namespace {

// The link-time address of file offset `offset` in an object's segments.
std::optional<uint64_t> vaddr_of(const std::vector<LoadSegment>& loads, uint64_t offset) {
  for (const auto& s : loads)
    if (offset >= s.offset && offset < s.offset + s.filesz) return s.vaddr + (offset - s.offset);
  return std::nullopt;
}

}  // namespace

std::optional<sonde_cfi_process> process_mappings(pid_t pid, TableStore& store) {
  auto text = read_proc_maps(pid);
  if (!text) return std::nullopt;
  sonde_cfi_process p{};
  for_each_maps_line(*text, [&](const MapsLine& m) {
    const bool vdso = classify_mapped_path(m.path) == MappedPath::kVdso;
    if (!m.executable() || (!m.is_path() && !vdso) || m.deleted() || p.count >= SONDE_CFI_MAX_MAPPINGS) return;
    const ObjectTable& o = vdso ? store.vdso(m.end - m.start)
                                : store.object(path_in_process(pid, m.path), makedev(m.dev_major, m.dev_minor), m.inode);
    auto vaddr = vaddr_of(o.loads, m.offset);
    sonde_cfi_mapping& out = p.m[p.count++];
    out.start = m.start;
    out.end = m.end;
    out.bias = vaddr ? m.start - *vaddr : 0;
    out.table = vaddr ? o.table : SONDE_CFI_NO_TABLE;
  });
  return p;
}

}  // namespace sonde::cfi
