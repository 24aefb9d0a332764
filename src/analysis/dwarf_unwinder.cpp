#include "analysis/dwarf_unwinder.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>

#include <fcntl.h>
#include <elf.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cstring>
#include <optional>

#include "cache/buildid_cache.h"
#include "elf/elf_file.h"
#include "elf/vdso.h"
#include "format/perf_abi.h"
#include "format/user_regs.h"
#include "jit/cfi_image.h"
#include "jit/jit_files.h"
#include "symbol/object_locator.h"
#include "util/fd.h"

namespace sonde::analysis {

namespace {

using format::kContextUser;  // perf's PERF_CONTEXT_USER marker in a call chain
constexpr uint64_t kRegsAbi64 = 2;  // PERF_SAMPLE_REGS_ABI_64
// Deep enough for any real stack; bounds a corrupt one.
constexpr size_t kMaxFrames = 512;
// libdwfl sessions kept at once (one per process; dropped at exit or exec).
constexpr size_t kMaxSessions = 256;

// x86-64 DWARF register numbers 0..16 (rax, rdx, rcx, rbx, rsi, rdi, rbp,
// rsp, r8..r15, rip) as perf_event_x86_regs.
constexpr int kDwarfToPerf[17] = {PERF_REG_X86_AX, PERF_REG_X86_DX, PERF_REG_X86_CX,  PERF_REG_X86_BX,
                                  PERF_REG_X86_SI, PERF_REG_X86_DI, PERF_REG_X86_BP,  PERF_REG_X86_SP,
                                  PERF_REG_X86_R8, PERF_REG_X86_R9, PERF_REG_X86_R10, PERF_REG_X86_R11,
                                  PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14, PERF_REG_X86_R15,
                                  PERF_REG_X86_IP};

// Objects come from the files sonde found and verified: libdwfl is never
// asked to look for one itself, nor for separate debug files (its standard
// search would also ask debuginfod servers, on the reading path of every
// report; x86-64 code carries its CFI in .eh_frame).
// An object's bytes in memory, handed to libdwfl as a module's user data:
// a file mapped once per report (shared by every process's session) or the
// ELF image of a JIT function's unwinding tables (jit/cfi_image.h).
struct ModuleImage {
  uint8_t* data = nullptr;
  size_t size = 0;
};

// libdwfl asks for a module's ELF: an Elf over its image, which libdwfl
// ends with the session; the image stays.
int image_elf(Dwfl_Module*, void** userdata, const char*, Dwarf_Addr, char**, Elf** elfp) {
  auto* image = userdata ? static_cast<ModuleImage*>(*userdata) : nullptr;
  if (image) *elfp = libelf_over_image({image->data, image->size});
  return -1;
}

// An object file mapped once (private, copy-on-write: libelf reads it in
// place) with what libdwfl's dwfl_report_elf computes of its placement.
struct SharedObject {
  ModuleImage image;
  uint64_t vaddr = 0;  // the first PT_LOAD's page
  uint64_t end = 0;    // the last PT_LOAD's end
  bool exec = false;   // ET_EXEC: placed where its program headers say
  ~SharedObject() {
    if (image.data) ::munmap(image.data, image.size);
  }
};

std::unique_ptr<SharedObject> map_object(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0 || st.st_size <= 0) return nullptr;
  void* map = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd.get(), 0);
  if (map == MAP_FAILED) return nullptr;
  auto obj = std::make_unique<SharedObject>();
  obj->image = {static_cast<uint8_t*>(map), static_cast<size_t>(st.st_size)};
  auto elf = ElfFile::over_image({obj->image.data, obj->image.size}, path, nullptr);
  if (!elf || elf->load_segments().empty()) return nullptr;  // no PT_LOAD: nothing to place
  const LoadSegment& first = elf->load_segments().front();
  obj->exec = elf->type() == ET_EXEC;
  obj->vaddr = first.vaddr & -(first.align ? first.align : 1);
  obj->end = elf->load_segments().back().vaddr + elf->load_segments().back().memsz;
  return obj;
}
int no_debuginfo(Dwfl_Module*, void**, const char*, Dwarf_Addr, const char*, const char*, GElf_Word, char**) {
  return -1;
}

}  // namespace

struct DwarfUnwinder::Impl {
  struct Process {
    Dwfl* dwfl = nullptr;
    bool attached = false;
    // By Mapping::index: whether libdwfl holds the mapping's object. Asked
    // once per mapping, so a mapping without a usable object (JIT code, a
    // file mapped where its ELF does not say) is not opened again per frame.
    std::unordered_map<uint32_t, bool> modules;
    // Where each object file was reported: libdwfl knows a file at one
    // place only (reporting it at a second base marks the first for removal,
    // and the next frame there would open it again).
    std::unordered_map<std::string_view, uint64_t> bases;
    // ELF images of JIT code's unwinding tables, read by libdwfl in place.
    std::vector<std::unique_ptr<std::vector<uint8_t>>> jit_images;
    std::vector<std::unique_ptr<ModuleImage>> jit_modules;
    ~Process() {
      if (dwfl) dwfl_end(dwfl);
    }
  };

  std::string cache_root;
  std::optional<BuildIdCache> cache;
  NoteList locator_notes;  // not printed: note() sums up what was not unwound
  std::optional<ObjectLocator> locator;
  std::unordered_map<uint32_t, std::unique_ptr<Process>> processes;
  std::unordered_map<uint32_t, std::string> binaries;  // by Mapping::index; "" = none usable
  std::unordered_map<BuildId, std::string, BuildIdHash> by_build_id;
  UniqueFd vdso_fd;                                     // running_vdso_file()
  UnwindStats* stats = nullptr;                         // the unwinder's
  // Each object file mapped once per report, by path (one path per
  // build-id: binary_for); null when it cannot be mapped.
  std::unordered_map<std::string, std::unique_ptr<SharedObject>> objects;
  const JitTimeline* jit = nullptr;
  Dwfl_Callbacks callbacks{};
  Dwfl_Thread_Callbacks thread_callbacks{};

  // The sample being unwound, for the callbacks.
  uint32_t pid = 0;
  pid_t tid = 0;
  const AddressSpace* space = nullptr;
  Process* process = nullptr;
  Dwarf_Word regs[17] = {};
  uint64_t sp = 0;
  std::span<const uint8_t> stack;
  std::vector<uint64_t> pcs;
  std::vector<uint64_t> chain;
  uint64_t frame_sp = 0;           // the last frame's stack pointer
  bool callee_has_object = false;  // the last frame's pc is in a reported object
  uint64_t fp_frames = 0;          // frames found through a frame pointer (this sample)
  std::unique_ptr<ElfFile> machine;  // machine_elf()

  // The sessions end before the machine ELF they were attached with and
  // the object images their modules read.
  ~Impl() { processes.clear(); }

  explicit Impl(std::string root) : cache_root(std::move(root)) {
    callbacks.find_elf = image_elf;
    callbacks.find_debuginfo = no_debuginfo;
    thread_callbacks.next_thread = next_thread;
    thread_callbacks.get_thread = get_thread;
    thread_callbacks.memory_read = memory_read;
    thread_callbacks.set_initial_registers = set_initial_registers;
    pcs.reserve(kMaxFrames);
    chain.reserve(kMaxFrames + 256);
  }

  // The ELF file to read `m`'s CFI from: the cache's copy of its build-id,
  // else the mapped path if its build-id matches. Looked up once per mapping.
  const std::string& binary_for(const Mapping& m) {
    auto it = binaries.find(m.index);
    if (it != binaries.end()) return it->second;
    // Every process maps libc: with a build-id, one lookup serves them all.
    if (!m.build_id.empty()) {
      auto same = by_build_id.find(m.build_id);
      if (same != by_build_id.end()) return binaries.emplace(m.index, same->second).first->second;
    }
    std::string found = find_binary(m);
    if (!m.build_id.empty()) by_build_id.emplace(m.build_id, found);
    return binaries.emplace(m.index, std::move(found)).first->second;
  }

  // Found by the symbolizer's rules (symbol/object_locator.h): only the
  // object's own file, whose .eh_frame libdwfl reads; no debug files.
  std::string find_binary(const Mapping& m) {
    // JIT code placed from a jitdump (analysis/jit_timeline.h): no ELF to read.
    if (jit::jitdump_pid(m.path)) return "";
    if (!locator) {
      cache.emplace(cache_root.empty() ? BuildIdCache::default_root() : cache_root);
      locator.emplace(LocatorOptions{}, &*cache, locator_notes);
    }
    LocatedObject found = locator->find_binary(m.build_id, std::string(m.path), static_cast<pid_t>(m.pid));
    if (!found.binary) return "";
    // The running kernel's vdso is an image in memory (fd -1).
    return found.binary->fd() >= 0 ? found.binary->path() : running_vdso_file();
  }

  // The running kernel's vdso (the locator checked its build-id) as a file
  // libdwfl can open: a memfd holding a copy of this process's image.
  std::string running_vdso_file() {
    if (!vdso_fd) {
      auto image = own_vdso();
      vdso_fd.reset(::memfd_create("sonde-vdso", MFD_CLOEXEC));
      if (!vdso_fd || image.empty() || !write_all(vdso_fd.get(), image.data(), image.size())) {
        vdso_fd.reset();
        return "";
      }
    }
    return "/proc/self/fd/" + std::to_string(vdso_fd.get());
  }

  // Makes sure libdwfl knows the object holding `pc` (perf's report_module).
  // False for code with no object to read CFI from: libdwfl then follows
  // the frame pointer (its x86-64 fallback), checked in on_frame.
  bool report_module(uint64_t pc) {
    const Mapping* m = space->find(pid, pc, false);
    if (!m || !m->executable()) return false;
    auto [known, fresh] = process->modules.try_emplace(m->index, false);
    if (fresh) known->second = report_mapping(*m, pc);
    return known->second;
  }

  bool report_mapping(const Mapping& m, uint64_t pc) {
    if (jit::jitdump_pid(m.path)) return report_jit_code(m, pc);
    const std::string& file = binary_for(m);
    if (file.empty()) return false;
    const uint64_t base = m.start - m.pgoff;
    auto [where, first] = process->bases.try_emplace(file, base);
    // A second mapping of the same file elsewhere (V8 remaps node's
    // embedded builtins): its ELF does not describe that address.
    if (!first) return where->second == base && dwfl_addrmodule(process->dwfl, pc) != nullptr;
    auto [obj, fresh] = objects.try_emplace(file);
    if (fresh) obj->second = map_object(file), ++stats->objects;
    const SharedObject* o = obj->second.get();
    if (!o) return false;
    // Placed as dwfl_report_elf(base, add_p_vaddr = false) places a file.
    const uint64_t start = o->exec ? o->vaddr : base;
    const uint64_t bias = o->exec ? 0 : base - o->vaddr;
    return report_image(file.c_str(), start, bias + o->end, const_cast<ModuleImage*>(&o->image), pc);
  }

  // A module over [start, end) whose ELF libdwfl reads from `image`.
  bool report_image(const char* name, uint64_t start, uint64_t end, ModuleImage* image, uint64_t pc) {
    Dwfl_Module* mod = dwfl_report_module(process->dwfl, name, start, end);
    void** userdata = nullptr;
    if (!mod || !dwfl_module_info(mod, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr)) return false;
    *userdata = image;
    return dwfl_addrmodule(process->dwfl, pc) == mod;
  }

  // JIT code placed from a jitdump, when the dump gave its unwinding
  // tables: a module of the code's range whose ELF is those tables.
  bool report_jit_code(const Mapping& m, uint64_t pc) {
    auto info = jit ? jit->unwinding(m.pid, m.pgoff) : std::nullopt;
    if (!info) return false;
    auto& bytes = process->jit_images.emplace_back(std::make_unique<std::vector<uint8_t>>(jit::cfi_elf_image(*info)));
    auto& image = process->jit_modules.emplace_back(std::make_unique<ModuleImage>(ModuleImage{bytes->data(), bytes->size()}));
    return report_image("[jit]", m.start, m.end, image.get(), pc);
  }

  // The machine libdwfl unwinds for, when the sample's first frame has no
  // object to tell it (a JIT leaf): an x86-64 ELF header in memory.
  Elf* machine_elf() {
    if (!machine) {
      const Elf64_Ehdr h = jit::x86_64_elf_header(ET_EXEC);
      std::vector<uint8_t> image(sizeof h);
      std::memcpy(image.data(), &h, sizeof h);
      machine = ElfFile::from_memory(std::move(image), "x86-64", nullptr);
    }
    return machine ? machine->elf() : nullptr;
  }

  static pid_t next_thread(Dwfl*, void* arg, void** thread_arg) {
    if (*thread_arg) return 0;
    *thread_arg = arg;
    return static_cast<Impl*>(arg)->tid;
  }
  static bool get_thread(Dwfl*, pid_t, void* arg, void** thread_arg) {
    *thread_arg = arg;
    return true;
  }
  // Only the stack copied into the sample is readable: anything else would
  // be the process's memory at another time.
  static bool memory_read(Dwfl*, Dwarf_Addr addr, Dwarf_Word* result, void* arg) {
    auto* u = static_cast<Impl*>(arg);
    if (addr < u->sp || u->stack.size() < sizeof(Dwarf_Word) || addr - u->sp > u->stack.size() - sizeof(Dwarf_Word))
      return false;
    std::memcpy(result, u->stack.data() + (addr - u->sp), sizeof(Dwarf_Word));
    return true;
  }
  static bool set_initial_registers(Dwfl_Thread* thread, void* arg) {
    auto* u = static_cast<Impl*>(arg);
    if (!dwfl_thread_state_registers(thread, 0, 17, u->regs)) return false;
    dwfl_thread_state_register_pc(thread, u->regs[16]);
    return true;
  }
  static int on_frame(Dwfl_Frame* state, void* arg) {
    auto* u = static_cast<Impl*>(arg);
    Dwarf_Addr pc = 0;
    bool activation = false;
    if (!dwfl_frame_pc(state, &pc, nullptr)) return DWARF_CB_ABORT;
    // Each frame's stack pointer is above its callee's: a frame-pointer
    // chain that loops or points down is not followed.
    Dwarf_Word sp = 0;
    if (dwfl_frame_reg(state, 7, &sp) == 0) {
      if (!u->pcs.empty() && sp <= u->frame_sp) return DWARF_CB_ABORT;
      u->frame_sp = sp;
    }
    // The callee had no object, so this frame came from its frame pointer.
    if (!u->pcs.empty() && !u->callee_has_object) ++u->fp_frames;
    // Before asking whether it is an activation: that reads the CFI.
    u->callee_has_object = u->report_module(pc);
    if (!dwfl_frame_pc(state, &pc, &activation)) return DWARF_CB_ABORT;
    if (!activation) --pc;
    u->pcs.push_back(pc);
    return u->pcs.size() >= kMaxFrames ? DWARF_CB_ABORT : DWARF_CB_OK;
  }
};

DwarfUnwinder::DwarfUnwinder(std::string cache_root) : impl_(std::make_unique<Impl>(std::move(cache_root))) {
  impl_->stats = &stats_;
}
DwarfUnwinder::~DwarfUnwinder() = default;

bool DwarfUnwinder::unwind(format::Sample& s, uint64_t regs_mask, const AddressSpace& space) {
  if (s.regs_abi != kRegsAbi64 || s.regs_user.empty()) return false;  // no user state (kernel thread), or 32-bit
  Impl& u = *impl_;
  for (int i = 0; i < 17; ++i) {
    auto v = format::user_reg(s.regs_user, regs_mask, kDwarfToPerf[i]);
    if (!v) return false;
    u.regs[i] = *v;
  }
  ++stats_.samples;
  u.pid = s.pid;
  u.tid = static_cast<pid_t>(s.tid);
  u.space = &space;
  u.sp = u.regs[7];
  u.stack = s.stack_user;
  u.pcs.clear();

  auto found = u.processes.find(s.pid);
  if (found == u.processes.end()) {
    // A system-wide recording of many processes that never saw their EXIT
    // must not keep every session's CFI lookups.
    if (u.processes.size() >= kMaxSessions) u.processes.erase(u.processes.begin());
    ++stats_.sessions;
    found = u.processes.emplace(s.pid, std::make_unique<Impl::Process>()).first;
    found->second->dwfl = dwfl_begin(&u.callbacks);
  }
  auto& slot = found->second;
  u.process = slot.get();
  u.fp_frames = 0;
  if (u.process->dwfl && !u.stack.empty()) {
    // A libdwfl session is bound to its callbacks once; the machine comes
    // from an ELF header, since the first sample may well be in JIT code.
    if (!u.process->attached)
      u.process->attached = dwfl_attach_state(u.process->dwfl, u.machine_elf(), static_cast<pid_t>(s.pid),
                                              &u.thread_callbacks, &u);
    if (u.process->attached) dwfl_getthread_frames(u.process->dwfl, u.tid, Impl::on_frame, &u);
  }
  if (u.pcs.empty()) u.pcs.push_back(u.regs[16]);  // at least where the thread was
  stats_.unwound += u.pcs.size() > 1;
  stats_.frames += u.pcs.size();
  stats_.fp_frames += u.fp_frames;

  // The kernel's part as recorded (it stops before user space with
  // exclude_callchain_user), then the unwound user part.
  u.chain.clear();
  for (size_t i = 0; i < s.callchain_size(); ++i) {
    uint64_t a = s.callchain_at(i);
    if (a == kContextUser) break;
    u.chain.push_back(a);
  }
  u.chain.push_back(kContextUser);
  u.chain.insert(u.chain.end(), u.pcs.begin(), u.pcs.end());
  s.callchain = {reinterpret_cast<const uint8_t*>(u.chain.data()), u.chain.size() * sizeof(uint64_t)};
  return true;
}

void DwarfUnwinder::forget(uint32_t pid) { impl_->processes.erase(pid); }

void DwarfUnwinder::set_jit_timeline(const JitTimeline* jit) { impl_->jit = jit; }

std::string DwarfUnwinder::note() const {
  std::string out;
  const uint64_t stuck = stats_.samples - stats_.unwound;
  if (stuck != 0)
    out = std::to_string(stuck) + " of " + std::to_string(stats_.samples) +
          " samples with a user stack were not unwound past the sampled function (its object was not found by "
          "build-id, or has no CFI there)";
  if (stats_.fp_frames != 0)
    out += std::string(out.empty() ? "" : "; ") + std::to_string(stats_.fp_frames) + " of " +
           std::to_string(stats_.frames) +
           " user frames were found by following frame pointers through code with no CFI object (JIT code)";
  return out;
}

}  // namespace sonde::analysis
