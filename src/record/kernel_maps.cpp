#include "record/kernel_maps.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <sstream>

#include "elf/build_id.h"
#include "util/fd.h"
#include "util/fs.h"

namespace sonde::record {

namespace {

// The address of _text. It sits among the first lines of /proc/kallsyms, so
// read only until it is found (the whole file is ~10 MB and slow to read).
uint64_t kernel_text_address() {
  UniqueFd fd(::open("/proc/kallsyms", O_RDONLY | O_CLOEXEC));
  if (!fd) return 0;
  std::string buf;
  char chunk[16384];
  for (int i = 0; i < 64; ++i) {
    ssize_t n = ::read(fd.get(), chunk, sizeof chunk);
    if (n <= 0) break;
    buf.append(chunk, static_cast<size_t>(n));
    size_t at = 0;
    while ((at = buf.find(" _text\n", at)) != std::string::npos) {
      size_t ls = buf.rfind('\n', at);
      ls = ls == std::string::npos ? 0 : ls + 1;
      unsigned long long addr = 0;
      char type = 0;
      if (std::sscanf(buf.c_str() + ls, "%llx %c", &addr, &type) == 2 && (type == 'T' || type == 't')) return addr;
      at += 7;
    }
    size_t last = buf.rfind('\n');
    if (last != std::string::npos) buf.erase(0, last + 1);
  }
  return 0;
}

void emit_kernel_mmap2(const SynthContext& ctx, uint64_t start, uint64_t len, const std::string& name,
                       const std::optional<BuildId>& id) {
  perf::Mmap2Fixed m{};
  m.header = {perf::kMmap2, perf::kMiscKernel, 0};
  m.pid = m.tid = static_cast<uint32_t>(-1);
  m.addr = start;
  m.len = len;
  m.pgoff = start;  // perf's convention for the kernel map: pgoff = start
  m.prot = PROT_READ | PROT_EXEC;
  m.flags = MAP_PRIVATE;
  if (id && !id->empty()) perf::set_mmap2_build_id(m, id->bytes.data(), id->size);
  perf::RecordBuilder b(perf::kMmap2, m.header.misc);
  b.raw().clear();
  b.put(m);
  b.put_cstring(name, 8);
  ctx.put_trailer(b, 0, 0);  // perf writes zeros for synthesized kernel maps
  ctx.emit(b);
}

}  // namespace

void synthesize_kernel_maps(const SynthContext& ctx) {
  uint64_t text = kernel_text_address();
  if (text != 0) {
    // Up to the top of the address space, as perf does; module maps that
    // follow take precedence for their ranges.
    emit_kernel_mmap2(ctx, text, ~0ULL - text, "[kernel.kallsyms]_text",
                      read_build_id_from_notes_file("/sys/kernel/notes"));
  }
  auto modules = read_small_file("/proc/modules");
  if (!modules) return;
  std::istringstream in(*modules);
  std::string line;
  while (std::getline(in, line)) {
    char name[256] = {};
    unsigned long long size = 0, addr = 0;
    // name size refcount deps state address
    if (std::sscanf(line.c_str(), "%255s %llu %*s %*s %*s %llx", name, &size, &addr) != 3 || addr == 0) continue;
    emit_kernel_mmap2(ctx, addr, size, std::string("[") + name + "]",
                      read_build_id_from_notes_file(std::string("/sys/module/") + name +
                                                    "/notes/.note.gnu.build-id"));
  }
}

}  // namespace sonde::record
