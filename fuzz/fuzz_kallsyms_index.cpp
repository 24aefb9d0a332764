// sonde's kallsyms index as read back from the build-id cache (a file anyone
// with write access to the cache could have damaged). Input: u16 length of
// the kallsyms text, the text, then the index; the index's text size and
// inode are set to the text's, so the checks after that binding are reached.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "fuzz_input.h"
#include "symbol/kallsyms_index.h"
#include "symbol/kernel_symbols.h"
#include "util/fd.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  uint16_t text_len = 0;
  std::memcpy(&text_len, data, sizeof text_len);
  const size_t n = std::min<size_t>(text_len, size - 2);
  sonde::fuzz::InputFile text_file(data + 2, n);
  struct stat st {};
  if (::fstat(text_file.fd(), &st) != 0) return 0;
  const sonde::KallsymsText text{static_cast<uint64_t>(st.st_size), static_cast<uint64_t>(st.st_ino)};
  std::vector<uint8_t> index(data + 2 + n, data + size);
  if (index.size() >= 32) {  // text_size at 16, text_inode at 24
    std::memcpy(index.data() + 16, &text.size, 8);
    std::memcpy(index.data() + 24, &text.inode, 8);
  }
  sonde::KernelSymbols syms;
  std::vector<sonde::ModuleRange> modules;
  std::string why;
  sonde::UniqueFd names(::open(text_file.path().c_str(), O_RDONLY | O_CLOEXEC));
  if (!sonde::decode_kallsyms_index(index, text, std::move(names), syms, modules, &why)) return 0;
  for (size_t i = 0; i < syms.size(); ++i) {
    (void)syms.find(syms.addr(i));
    (void)syms.name(i);
    (void)sonde::find_module(modules, syms.addr(i));
  }
  return 0;
}
