// The data objects of an ELF file (STT_OBJECT symbols), for naming what a
// %rip-relative operand points at as objdump does ("# 4020 <sink>"). The
// symbolizer's tables hold functions only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sonde {
class ElfFile;
}

namespace sonde::annotate {

class DataSymbols {
 public:
  explicit DataSymbols(const ElfFile& file);
  // "sink" or "table+0x8" for an address inside an object (`within`), or
  // after the nearest object before it (objdump's choice when nothing
  // holds the address); nullopt when none fits.
  std::optional<std::string> name_at(uint64_t addr, bool within = true) const;

 private:
  struct Object {
    uint64_t addr, size;
    std::string name;
  };
  std::vector<Object> objects_;  // by address
};

}  // namespace sonde::annotate
