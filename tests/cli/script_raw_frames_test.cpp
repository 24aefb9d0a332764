// `sonde script --no-symbols` on kernel frames: the kernel's map has no file,
// so its frames print as "[kernel.kallsyms]+OFFSET" from _text, the symbol
// perf's and sonde's kernel map is named after ("[kernel.kallsyms]_text").
#include <gtest/gtest.h>

#include <regex>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

uint64_t kallsyms_text() {
  auto r = sh("grep -m1 ' _text$' /proc/kallsyms");
  return r.out.empty() ? 0 : std::stoull(r.out.substr(0, r.out.find(' ')), nullptr, 16);
}

// Checks every kernel frame of `data`: OFFSET + _text == the address.
void expect_kernel_frames_relative_to_text(const std::string& data) {
  uint64_t text = kallsyms_text();
  ASSERT_NE(text, 0u) << "no _text address in /proc/kallsyms";
  auto r = run({sonde_bin(), "script", "--no-symbols", "-i", data});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  static const std::regex frame("\\t *([0-9a-f]+) \\[kernel\\.kallsyms\\]\\+0x([0-9a-f]+) [-0-9a-f]+");
  size_t kernel_frames = 0;
  for (const auto& l : lines(r.out)) {
    EXPECT_EQ(l.find("[kernel.kallsyms]_text"), std::string::npos) << l;
    std::smatch m;
    if (!std::regex_match(l, m, frame)) continue;
    ++kernel_frames;
    EXPECT_EQ(std::stoull(m[2], nullptr, 16) + text, std::stoull(m[1], nullptr, 16)) << l;
  }
  EXPECT_GT(kernel_frames, 10u);
}

// A workload that spends its time in system calls.
const char* kSyscalls = "dd if=/dev/zero of=/dev/null bs=64 count=400000";

}  // namespace

TEST(ScriptRawFrames, KernelFramesAreOffsetsFromTextInSondesRecording) {
  TempDir dir;
  std::string data = dir / "sonde.data";
  auto r = sh(sonde_bin() + " record -q -g -o " + data + " -- " + kSyscalls + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_kernel_frames_relative_to_text(data);
}

TEST(ScriptRawFrames, KernelFramesAreOffsetsFromTextInPerfsRecording) {
  TempDir dir;
  std::string data = dir / "perf.data";
  auto r = sh("perf record -q -g -o " + data + " -- " + kSyscalls + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_kernel_frames_relative_to_text(data);
}
