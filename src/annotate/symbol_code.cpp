#include "annotate/symbol_code.h"

#include <fmt/format.h>

#include "cache/buildid_cache.h"
#include "jit/jit_files.h"
#include "util/error.h"
#include "util/mapped_path.h"
#include "util/proc_maps.h"

namespace sonde::annotate {

CodeFinder::CodeFinder(Symbolizer& symbolizer, CodeOptions opts) : sym_(symbolizer), opts_(std::move(opts)) {
  const SymbolizerOptions& o = sym_.options();
  if (o.use_cache) cache_ = std::make_unique<BuildIdCache>(BuildIdCache::default_root(o.cache_root));
  LocatorOptions lo;
  lo.debug_roots = o.debug_roots;
  lo.use_proc_root = o.use_proc_root;
  locator_ = std::make_unique<ObjectLocator>(lo, cache_.get(), notes_);
}

CodeFinder::~CodeFinder() = default;

std::string places_looked(const std::string& dso, const BuildId& build_id, uint32_t pid, const BuildIdCache* cache) {
  std::string where;
  if (cache && !build_id.empty()) where = fmt::format("the build-id cache {}", cache->root());
  if (!dso.empty() && dso.front() == '/') {
    if (pid > 0) where += fmt::format("{}{}", where.empty() ? "" : ", ", proc_root_path(pid_t(pid), dso));
    where += fmt::format("{}{}", where.empty() ? "" : ", ", dso);
  }
  return where.empty() ? "nowhere to look (no build-id, no path)" : where;
}

namespace {

void check_size(const SymbolHist& h) {
  if (h.symbol_size == 0) throw_runtime("cannot annotate {}: the symbol has no size (no code to show)", h.name);
}

// The symbol's bytes in an ELF file: one PT_LOAD's file contents must hold
// them all (a symbol in .bss, or a debug file's NOBITS .text, has none).
std::span<const uint8_t> elf_symbol_bytes(const ElfFile& bin, const SymbolHist& h, uint64_t size) {
  check_size(h);
  auto first = bin.vaddr_to_offset(h.symbol_addr);
  auto last = bin.vaddr_to_offset(h.symbol_addr + size - 1);
  std::span<const uint8_t> image = bin.bytes();
  if (!first || !last || *last - *first != size - 1 || image.empty() || *last >= image.size())
    throw_runtime("cannot annotate {}: {} has no code bytes for it at {:#x}", h.name, bin.path(), h.symbol_addr);
  return image.subspan(*first, size);
}

}  // namespace

SymbolCode CodeFinder::code_for(const SymbolHist& h) {
  if (h.kernel) return kernel_code(h);
  if (h.object.valid()) {
    ObjectKind kind = sym_.info(h.object).kind;
    if (kind == ObjectKind::kJitDump) return jit_code(h);
    if (kind == ObjectKind::kPerfMap)
      throw_runtime("cannot annotate {}: {} names JIT code but holds no code bytes (a jitdump does: node "
                    "--perf-prof, the JVM's perf agents)", h.name, h.dso);
  }
  return object_code(h);
}

SymbolCode CodeFinder::object_code(const SymbolHist& h) {
  std::string key = h.build_id.empty() ? h.dso : h.build_id.hex();
  auto it = binaries_.find(key);
  if (it == binaries_.end()) {
    LocatedObject found = is_pseudo_path(h.dso) ? locator_->find_pseudo(h.build_id, h.dso)
                                                 : locator_->find_symbols(h.build_id, h.dso, pid_t(h.pid));
    it = binaries_.emplace(key, std::move(found)).first;
  }
  const LocatedObject& found = it->second;
  if (!found.binary) {
    if (found.reason == Reason::kBuildIdMismatch) throw_runtime("cannot annotate {}: {}", h.name, found.note);
    throw_runtime("cannot annotate {}: {}{} not found (looked in {})", h.name, h.dso,
                  h.build_id.empty() ? "" : " (build-id " + h.build_id.hex() + ")", places_looked(h.dso, h.build_id, h.pid, cache_.get()));
  }
  SymbolCode code;
  code.mapped = elf_symbol_bytes(*found.binary, h, h.symbol_size);
  code.path = found.binary->path();
  // A separate debug file's .symtab names what the stripped object's cannot.
  code.names = found.debug ? found.debug.get() : found.binary.get();
  return code;
}

// A vmlinux given with -k (its build-id must be the recorded kernel's),
// else kcore: /proc/kcore when the recorded kernel is the running one, or
// the copy named with --kcore.
SymbolCode CodeFinder::kernel_code(const SymbolHist& h) {
  const std::string& vmlinux = sym_.options().vmlinux_path;
  SymbolCode code;
  if (!vmlinux.empty()) {
    const ElfFile& elf = this->vmlinux(h);
    if (!h.build_id.empty() && !elf.build_id().empty() && elf.build_id() != h.build_id)
      throw_runtime("cannot annotate {}: {}: build-id mismatch (file has {}, recorded {})", h.name, vmlinux,
                    elf.build_id().hex(), h.build_id.hex());
    // The symbol's own size: the kernel's table knows only the gap to the next.
    uint64_t size = h.symbol_size;
    if (const TableSymbol* s = vmlinux_symbols_->find(h.symbol_addr); s && s->addr == h.symbol_addr && s->size)
      size = std::min(size, s->size);
    code.mapped = elf_symbol_bytes(elf, h, size);
    code.path = elf.path();
    code.names = &elf;
    return code;
  }
  check_size(h);
  const KcoreReader& k = kcore(h);
  std::string why;
  auto bytes = k.read(h.symbol_addr, h.symbol_size, &why);
  if (!bytes) throw_runtime("cannot annotate {}: {}", h.name, why);
  code.owned = std::move(*bytes);
  code.path = k.path();
  return code;
}

const SymbolTable* CodeFinder::vmlinux_symbols() {
  const std::string& path = sym_.options().vmlinux_path;
  if (path.empty()) return nullptr;
  if (!vmlinux_ && vmlinux_error_.empty()) {
    vmlinux_ = ElfFile::open(path, &vmlinux_error_);
    if (vmlinux_) {
      vmlinux_symbols_ = std::make_unique<SymbolTable>();
      vmlinux_symbols_->add_elf(*vmlinux_, false);
      vmlinux_symbols_->finalize();
    } else if (vmlinux_error_.empty()) {
      vmlinux_error_ = "cannot be read";
    }
  }
  return vmlinux_symbols_.get();
}

const ElfFile& CodeFinder::vmlinux(const SymbolHist& h) {
  if (!vmlinux_symbols()) throw_runtime("cannot annotate {}: -k {}: {}", h.name, sym_.options().vmlinux_path, vmlinux_error_);
  return *vmlinux_;
}

const KcoreReader& CodeFinder::kcore(const SymbolHist& h) {
  if (!kcore_ && kcore_error_.empty()) {
    auto running = read_build_id_from_notes_file(sym_.options().kernel_notes_path);
    if (!opts_.kcore_given && !h.build_id.empty() && running && *running != h.build_id)
      kcore_error_ = fmt::format("the recording's kernel (build-id {}) is not the running one ({}): its vmlinux "
                                 "is needed (-k)", h.build_id.hex(), running->hex());
    else
      kcore_ = KcoreReader::open(opts_.kcore_path, &kcore_error_);
  }
  if (!kcore_)
    throw_runtime("cannot annotate {}: kernel code needs a vmlinux (-k) or a readable kcore ({})", h.name,
                  kcore_error_);
  return *kcore_;
}

// The dump's bytes at the load's file offset (as the symbolizer read it:
// the recording's copy first).
SymbolCode CodeFinder::jit_code(const SymbolHist& h) {
  check_size(h);
  const std::string& file = sym_.info(h.object).symbol_file;
  auto it = jit_files_.find(file);
  if (it == jit_files_.end()) {
    std::string bytes, why;
    if (!jit::read_jit_file(file, jit::kMaxJitFileBytes, bytes, &why)) throw_runtime("cannot annotate {}: {}", h.name, why);
    it = jit_files_.emplace(file, std::move(bytes)).first;
  }
  const std::string& dump = it->second;
  if (h.file_offset > dump.size() || h.symbol_size > dump.size() - h.file_offset)
    throw_runtime("cannot annotate {}: {} has no code bytes for it at offset {:#x}", h.name, file, h.file_offset);
  SymbolCode code;
  code.mapped = std::span(reinterpret_cast<const uint8_t*>(dump.data()) + h.file_offset, h.symbol_size);
  code.path = h.dso;
  return code;
}

}  // namespace sonde::annotate
