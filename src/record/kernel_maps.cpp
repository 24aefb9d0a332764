#include "record/kernel_maps.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <sstream>

#include "elf/build_id.h"
#include "format/records.h"
#include "util/fd.h"
#include "util/fs.h"
#include "util/fields.h"
#include "util/parse_int.h"

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
      // "ffffffff81000000 T _text"
      std::string_view line = std::string_view(buf).substr(ls, at - ls);
      uint64_t addr = 0;
      bool hex = parse_uint_into(next_field(line), addr, IntSyntax::Hex);
      std::string_view type = next_field(line);
      if (hex && (type == "T" || type == "t")) return addr;
      at += 7;
    }
    size_t last = buf.rfind('\n');
    if (last != std::string::npos) buf.erase(0, last + 1);
  }
  return 0;
}

// `notes`: the sysfs file holding the object's build-id note, read unless -B.
void emit_kernel_mmap2(const SynthContext& ctx, uint64_t start, uint64_t len, const std::string& name,
                       const std::string& notes) {
  std::optional<BuildId> id;
  if (ctx.build_ids.enabled()) id = read_build_id_from_notes_file(notes);
  format::Mmap2View m;
  m.misc = format::kMiscKernel;
  m.pid = m.tid = static_cast<uint32_t>(-1);
  m.addr = start;
  m.len = len;
  m.pgoff = start;  // perf's convention for the kernel map: pgoff = start
  m.prot = PROT_READ | PROT_EXEC;
  m.flags = MAP_PRIVATE;
  m.filename = name;
  if (id) m.build_id = id->view();  // none when empty: the inode form
  format::RecordBuilder b = format::build_mmap2(m);
  ctx.put_trailer(b, 0, 0);  // perf writes zeros for synthesized kernel maps
  ctx.emit(b);
}

}  // namespace

void synthesize_kernel_maps(const SynthContext& ctx) {
  uint64_t text = kernel_text_address();
  if (text != 0) {
    // Up to the top of the address space, as perf does; module maps that
    // follow take precedence for their ranges.
    emit_kernel_mmap2(ctx, text, ~0ULL - text, "[kernel.kallsyms]_text", "/sys/kernel/notes");
  }
  auto modules = read_small_file("/proc/modules");
  if (!modules) return;
  std::istringstream in(*modules);
  std::string line;
  while (std::getline(in, line)) {
    // "name size refcount deps state address", e.g. "ext4 1032192 1 - Live 0xffffffffc0a00000"
    std::string_view rest = line;
    std::string name(next_field(rest));
    uint64_t size = 0, addr = 0;
    bool sized = parse_uint_into(next_field(rest), size);
    for (int skipped = 0; skipped < 3; ++skipped) next_field(rest);  // refcount, deps, state
    if (name.empty() || !sized || !parse_uint_into(next_field(rest), addr, IntSyntax::HexOr0x) || addr == 0) continue;
    emit_kernel_mmap2(ctx, addr, size, "[" + name + "]", "/sys/module/" + name + "/notes/.note.gnu.build-id");
  }
}

}  // namespace sonde::record
