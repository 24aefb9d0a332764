// script -F insn: the bytes of the sampled instruction, read from the file
// mapped at the sampled address, as perf 6.1 prints them without --xed
// (arch_fetch_insn: up to 16 bytes, cut to the length of the one
// instruction they start with). The length comes from a decoder the caller
// gives (the CLI's capstone), so that this module needs no disassembler.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/frames.h"
#include "util/fd.h"

namespace sonde::script {

// The length of the instruction at the start of the bytes (0: undecodable).
using InstructionLength = std::function<size_t(std::span<const uint8_t>)>;

class InsnBytes {
 public:
  explicit InsnBytes(InstructionLength length) : length_(std::move(length)) {}
  // The instruction at a frame of a file mapping; empty for kernel,
  // anonymous and unreadable code (perf cannot read those either), and for
  // a file whose build-id is not the recorded one.
  std::span<const uint8_t> at(const analysis::Frame& frame);

 private:
  InstructionLength length_;
  std::unordered_map<std::string, UniqueFd> files_;  // by path; invalid: unreadable
  uint8_t bytes_[16] = {};
};

}  // namespace sonde::script
