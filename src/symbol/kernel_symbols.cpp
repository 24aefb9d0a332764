#include "symbol/kernel_symbols.h"

#include <algorithm>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <numeric>

#include "elf/vdso.h"
#include "util/error.h"
#include "util/fd.h"
#include "util/fields.h"
#include "util/fs.h"
#include "util/parse_int.h"

namespace sonde {

namespace {

bool parse_hex(std::string_view s, uint64_t& out) { return parse_uint_into(s, out, IntSyntax::HexOr0x); }

template <typename F>
void for_each_line(std::string_view text, F&& f) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    f(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
}

// The name at `off` of `text`: up to the first blank, newline or NUL, as
// when it was parsed (bounded by kMaxName).
std::string_view name_at(std::string_view text, size_t off) {
  if (off >= text.size()) return {};
  std::string_view rest = text.substr(off, KernelSymbols::kMaxName);
  size_t len = 0;
  while (len < rest.size() && rest[len] != ' ' && rest[len] != '\t' && rest[len] != '\n' && rest[len] != '\0') ++len;
  return rest.substr(0, len);
}

}  // namespace

size_t KernelSymbols::find(uint64_t vaddr) const {
  size_t after = 0;  // symbols starting at or below vaddr
  if (narrow_) {
    if (vaddr < base_) return kNone;
    // Past the 32-bit range: the last symbol, which the size check rejects.
    uint32_t key = static_cast<uint32_t>(std::min<uint64_t>(vaddr - base_, UINT32_MAX));
    after = static_cast<size_t>(std::upper_bound(lo_.begin(), lo_.end(), key) - lo_.begin());
  } else {
    after = static_cast<size_t>(std::upper_bound(addrs_.begin(), addrs_.end(), vaddr) - addrs_.begin());
  }
  if (after == 0) return kNone;
  size_t i = after - 1;
  return vaddr - addr(i) < size(i) ? i : kNone;
}

std::string_view KernelSymbols::name(size_t i) {
  uint32_t pos = name_pos_[i];
  if (file_) {
    auto [it, fresh] = read_.try_emplace(static_cast<uint32_t>(i));
    if (!fresh) return it->second;
    // The name ends at the first blank or newline, as when it was parsed. A
    // file changed in place since (the cache writes by rename, so only by
    // hand) yields a wrong or empty name, never a read out of bounds.
    char buf[kMaxName];
    ssize_t n = -1;
    do {
      n = ::pread(file_.get(), buf, sizeof buf, static_cast<off_t>(pos));
    } while (n < 0 && errno == EINTR);
    it->second = read_names_.add(name_at(std::string_view(buf, n > 0 ? static_cast<size_t>(n) : 0), 0));
    return it->second;
  }
  // NUL-terminated: add() rejects names containing NUL bytes.
  if (pos == kNoName) return {};
  return std::string_view(blocks_[pos >> kBlockBits].get() + (pos & (kBlock - 1)));
}

uint32_t KernelSymbols::store(std::string_view name) {
  if (used_ + name.size() + 1 > kBlock) {
    // 32-bit positions: 65536 blocks (4 GiB of names) is far beyond any kernel.
    if (blocks_.size() >= (size_t{1} << (32 - kBlockBits)) - 1) return kNoName;
    blocks_.push_back(std::make_unique<char[]>(kBlock));
    used_ = 0;
  }
  char* p = blocks_.back().get() + used_;
  std::memcpy(p, name.data(), name.size());
  p[name.size()] = '\0';
  uint32_t pos = static_cast<uint32_t>(((blocks_.size() - 1) << kBlockBits) | used_);
  used_ += name.size() + 1;
  return pos;
}

void KernelSymbols::adopt(Arrays a, UniqueFd names) {
  base_ = a.base;
  narrow_ = a.narrow;
  lo_ = std::move(a.lo);
  addrs_ = std::move(a.addrs);
  name_pos_ = std::move(a.name_pos);
  file_ = std::move(names);
}

void KernelSymbols::add(uint64_t addr, std::string_view name, uint64_t file_offset) {
  if (name.empty() || name.size() > kMaxName || name.find('\0') != std::string_view::npos) return;
  uint32_t pos = kNoName;
  if (file_) {
    if (file_offset >= UINT32_MAX) return;  // a 4 GiB kallsyms is not a kallsyms
    pos = static_cast<uint32_t>(file_offset);
  } else {
    pos = store(name);
    if (pos == kNoName) return;
  }
  // Kept as 4-byte offsets from the start, already while building (half the
  // memory at the report's peak): the base is the first address rounded
  // down to 2 GiB, which holds the whole kernel text and module area on
  // x86-64 (kernel at 0xffffffff81000000, the first kallsyms line). An
  // address outside base .. base + 4 GiB switches to 8-byte addresses.
  if (name_pos_.empty() && addrs_.empty()) {
    base_ = addr & ~uint64_t{0x7fffffff};
    narrow_ = true;
  }
  if (narrow_ && (addr < base_ || addr - base_ > UINT32_MAX)) {
    addrs_.reserve(lo_.capacity());
    for (uint32_t v : lo_) addrs_.push_back(base_ + v);
    std::vector<uint32_t>().swap(lo_);
    narrow_ = false;
  }
  if (narrow_)
    lo_.push_back(static_cast<uint32_t>(addr - base_));
  else
    addrs_.push_back(addr);
  name_pos_.push_back(pos);
}

namespace {

// Sorts `keys` (addresses or offsets) with their name positions and keeps
// one entry per key: the last alias in file order wins (perf's rule for
// kallsyms), i.e. the last of each run of equal keys.
template <typename Key>
void sort_and_dedup(std::vector<Key>& keys, std::vector<uint32_t>& name_pos) {
  const size_t n = keys.size();
  if (!std::is_sorted(keys.begin(), keys.end())) {
    // Modules may come out of address order: sort a permutation, stable so
    // that file order survives among aliases.
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
    // Applied in place, cycle by cycle (slot j takes the entry at order[j]),
    // instead of into new arrays that would add to the report's peak memory.
    for (size_t i = 0; i < n; ++i) {
      if (order[i] == i) continue;
      const Key k0 = keys[i];
      const uint32_t p0 = name_pos[i];
      size_t j = i;
      for (;;) {
        const size_t k = order[j];
        order[j] = static_cast<uint32_t>(j);
        if (k == i) {
          keys[j] = k0;
          name_pos[j] = p0;
          break;
        }
        keys[j] = keys[k];
        name_pos[j] = name_pos[k];
        j = k;
      }
    }
  }
  size_t out = 0;
  for (size_t i = 0; i < n; ++i) {
    if (out > 0 && keys[out - 1] == keys[i]) {
      name_pos[out - 1] = name_pos[i];
      continue;
    }
    keys[out] = keys[i];
    name_pos[out] = name_pos[i];
    ++out;
  }
  keys.resize(out);
  keys.shrink_to_fit();
  name_pos.resize(out);
  name_pos.shrink_to_fit();
}

}  // namespace

void KernelSymbols::finish() {
  if (narrow_) {
    sort_and_dedup(lo_, name_pos_);
    return;
  }
  sort_and_dedup(addrs_, name_pos_);
  const size_t out = addrs_.size();
  if (out > 0 && addrs_.back() - addrs_.front() <= UINT32_MAX) {
    base_ = addrs_.front();
    lo_.resize(out);
    for (size_t i = 0; i < out; ++i) lo_[i] = static_cast<uint32_t>(addrs_[i] - base_);
    std::vector<uint64_t>().swap(addrs_);
    narrow_ = true;
  }
}

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// The next space/tab-separated field of [p, end), advancing p past it.
std::string_view take_field(const char*& p, const char* end) {
  while (p < end && is_blank(*p)) ++p;
  const char* b = p;
  while (p < end && !is_blank(*p)) ++p;
  return std::string_view(b, static_cast<size_t>(p - b));
}

// The kernel's own format, "%016lx %c %s...": 16 hex digits, the type, and
// p left at the name. Anything else (false) goes through the general field
// splitter, which accepts the same lines and more (0x, other widths, tabs).
bool kallsyms_shape(const char*& p, const char* end, uint64_t& addr, char& type) {
  if (end - p < 20 || p[16] != ' ' || p[18] != ' ' || is_blank(p[17]) || is_blank(p[19])) return false;
  uint64_t v = 0;
  for (int i = 0; i < 16; ++i) {
    unsigned char c = static_cast<unsigned char>(p[i]);
    unsigned d = c - '0';
    if (d > 9) {
      d = (c | 0x20u) - 'a';  // lower-cases letters; digits and others fall out of range
      if (d > 5) return false;
      d += 10;
    }
    v = v << 4 | d;
  }
  addr = v;
  type = p[17];
  p += 19;
  return true;
}

// Names stay in the file when it cannot change under us: a regular file
// with a size (procfs files report 0), and not one whose text is wanted.
bool keep_names_in_file(int fd, const std::string& path, KernelSymbols& syms, int copy_fd, std::string* reason) {
  struct stat st {};
  if (copy_fd >= 0) {
    // The copy holds the same bytes at the same offsets: names are read
    // from it (our own inode, whatever later happens to the cache entry).
    UniqueFd names(::fcntl(copy_fd, F_DUPFD_CLOEXEC, 0));
    if (!names) {
      if (reason) *reason = fmt::format("cannot keep a copy of {}: {}", path, errno_text(errno));
      return false;
    }
    syms.names_in(std::move(names));
  } else if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    // The same open file (not a second open(), which could find a newer
    // file under the name); pread does not care about the shared position.
    UniqueFd names(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
    if (names) syms.names_in(std::move(names));
  }
  return true;
}

// A module's symbols come together: its range grows with each.
void add_to_module(std::vector<ModuleRange>& modules, std::string_view mod, uint64_t addr) {
  if (!modules.empty() && modules.back().name == mod) {
    modules.back().start = std::min(modules.back().start, addr);
    modules.back().end = std::max(modules.back().end, addr + 1);
  } else {
    modules.push_back({addr, addr + 1, std::string(mod)});
  }
}

}  // namespace

bool load_kallsyms(const std::string& path, KernelSymbols& syms, std::vector<ModuleRange>& modules,
                   std::string* reason, int copy_fd) {
  UniqueFd fd = open_regular_file(path.c_str());
  if (!fd) {
    if (reason) *reason = fmt::format("{}: {}", path, errno_text(errno));
    return false;
  }
  if (!keep_names_in_file(fd.get(), path, syms, copy_fd, reason)) return false;
  bool any_nonzero = false;
  uint64_t file_pos = 0;  // bytes read so far: the file offset of the buffer's end
  const char* buf_end = nullptr;
  auto parse_line = [&](const char* p, const char* end) {
    uint64_t addr = 0;
    char t = 0;
    std::string_view name, mod;
    if (!kallsyms_shape(p, end, addr, t)) {
      std::string_view a = take_field(p, end), type = take_field(p, end);
      name = take_field(p, end);
      if (name.empty() || type.size() != 1 || !parse_hex(a, addr)) return;
      t = type[0];
    }
    if (t != 't' && t != 'T' && t != 'w' && t != 'W') return;
    if (name.empty()) name = take_field(p, end);
    mod = take_field(p, end);
    if (addr == 0) return;
    any_nonzero = true;
    syms.add(addr, name, file_pos - static_cast<uint64_t>(buf_end - name.data()));
    if (!mod.empty()) add_to_module(modules, mod, addr);
  };
  // Streamed in chunks; a line longer than the buffer is malformed (kallsyms
  // names are at most 512 bytes) and skipped up to its newline.
  constexpr size_t kBuf = 256 * 1024;
  auto buf = std::make_unique<char[]>(kBuf);
  size_t have = 0;        // bytes in buf, starting with a partial line
  bool skipping = false;  // inside an over-long line
  for (;;) {
    ssize_t n = ::read(fd.get(), buf.get() + have, kBuf - have);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (reason) *reason = fmt::format("{}: {}", path, errno_text(errno));
      return false;
    }
    if (copy_fd >= 0 && !write_all(copy_fd, buf.get() + have, static_cast<size_t>(n))) {
      // Names would be missing from an incomplete copy: the caller reads
      // the symbols again without one.
      if (reason) *reason = fmt::format("cannot write the copy of {}: {}", path, errno_text(errno));
      return false;
    }
    file_pos += static_cast<uint64_t>(n);
    const char* p = buf.get();
    const char* end = buf.get() + have + static_cast<size_t>(n);
    buf_end = end;
    for (;;) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
      if (!nl) break;
      if (!skipping) parse_line(p, nl);
      skipping = false;
      p = nl + 1;
    }
    have = static_cast<size_t>(end - p);
    if (n == 0) {
      if (have > 0 && !skipping) parse_line(p, end);  // last line without a newline
      break;
    }
    if (have == kBuf) {
      skipping = true;
      have = 0;
    } else if (have > 0) {
      std::memmove(buf.get(), p, have);
    }
  }
  if (!any_nonzero) {
    if (reason) *reason = fmt::format("{}: no usable addresses (hidden by kernel.kptr_restrict?)", path);
    return false;
  }
  syms.finish();
  std::sort(modules.begin(), modules.end(), [](const auto& x, const auto& y) { return x.start < y.start; });
  return true;
}

const ModuleRange* find_module(const std::vector<ModuleRange>& modules, uint64_t addr) {
  auto it = std::upper_bound(modules.begin(), modules.end(), addr,
                             [](uint64_t a, const ModuleRange& m) { return a < m.start; });
  if (it == modules.begin()) return nullptr;
  --it;
  // end is the last symbol's start + 1: allow that symbol's body (1 MiB cap as above).
  return addr < it->end + (1 << 20) ? &*it : nullptr;
}

bool load_perf_map(const std::string& path, std::string& text, SymbolTable& table, std::string* reason) {
  auto content = read_small_file(path);
  if (!content) {
    if (reason) *reason = fmt::format("{}: {}", path, errno_text(errno));
    return false;
  }
  text = std::move(*content);
  for_each_line(std::string_view(text), [&](std::string_view line) {
    uint64_t start = 0, size = 0;
    std::string_view a = next_field(line), s = next_field(line);
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string_view::npos || !parse_hex(a, start) || !parse_hex(s, size)) return;
    std::string_view name = line.substr(b);
    if (!name.empty() && name.back() == '\r') name.remove_suffix(1);
    table.add_view(start, size, name);
  });
  table.finalize();
  return true;
}

std::unique_ptr<ElfFile> running_vdso(std::string* reason) {
  auto own = own_vdso();
  if (own.empty()) {
    if (reason) *reason = "no [vdso] mapping in this process";
    return nullptr;
  }
  return ElfFile::from_memory(std::vector<uint8_t>(own.begin(), own.end()), "[vdso]", reason);
}

}  // namespace sonde
