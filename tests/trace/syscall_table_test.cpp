// The syscall table (from the kernel headers), -e's selection, and the
// argument and return formatting of perf trace, without the kernel.
#include <gtest/gtest.h>

#include "trace/arg_format.h"
#include "trace/syscall_strings.h"
#include "trace/syscall_table.h"
#include "trace/trace_run.h"
#include "util/error.h"

namespace sonde::trace {
namespace {

TEST(SyscallTable, NamesAndNumbersFromTheHeaders) {
  EXPECT_EQ(syscall_name(0), "read");
  EXPECT_EQ(syscall_name(257), "openat");
  EXPECT_EQ(syscall_number("newfstatat"), 262u);
  EXPECT_FALSE(syscall_number("no_such_call").has_value());
  EXPECT_EQ(syscall_name(100000), "");
}

TEST(SyscallTable, SelectsNamesGlobsAndNegation) {
  EXPECT_EQ(select_syscalls("read,write"), (std::vector<uint32_t>{0, 1}));
  auto opens = select_syscalls("open*");
  EXPECT_NE(std::find(opens.begin(), opens.end(), 257u), opens.end());
  EXPECT_NE(std::find(opens.begin(), opens.end(), 2u), opens.end());
  auto all_but_read = select_syscalls("!read");
  EXPECT_EQ(std::find(all_but_read.begin(), all_but_read.end(), 0u), all_but_read.end());
  EXPECT_NE(std::find(all_but_read.begin(), all_but_read.end(), 1u), all_but_read.end());
}

TEST(SyscallTable, UnknownNameIsAUsageErrorWithTheNearestNames) {
  try {
    select_syscalls("opnat");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_NE(std::string(e.what()).find("unknown syscall 'opnat' (nearest: openat"), std::string::npos) << e.what();
  }
}

TEST(TraceArgs, DurationParsing) {
  EXPECT_EQ(parse_duration_ns("0.5"), 500000u);
  EXPECT_EQ(parse_duration_ns("2"), 2000000u);
  for (const char* bad : {"", "-1", "abc", "1ms", "nan"}) EXPECT_THROW(parse_duration_ns(bad), Error) << bad;
}

TEST(TraceFormat, ArgumentsAsPerfTracePrintsThem) {
  SyscallSignature openat{"openat",
                          {{"dfd", "int", false}, {"filename", "const char *", true}, {"flags", "int", false},
                           {"mode", "umode_t", false}},
                          true};
  const uint64_t args[6] = {static_cast<uint64_t>(-100), 0x7ffe12345678, 02000001, 0644, 0, 0};
  auto none = [](uint32_t) { return std::string_view{}; };
  EXPECT_EQ(format_args(openat, args, none), "dfd: CWD, filename: 0x12345678, flags: CLOEXEC|WRONLY");
  SyscallSignature mmap{"mmap",
                        {{"addr", "unsigned long", false}, {"len", "unsigned long", false}, {"prot", "unsigned long", false},
                         {"flags", "unsigned long", false}, {"fd", "unsigned long", false}, {"off", "unsigned long", false}},
                        true};
  const uint64_t margs[6] = {0, 8192, 3, 0x22, static_cast<uint64_t>(-1), 0};
  // perf masks an anonymous mapping's fd and offset (its mmap flags beautifier).
  EXPECT_EQ(format_args(mmap, margs, none), "len: 8192, prot: READ|WRITE, flags: PRIVATE|ANONYMOUS");
  const uint64_t file_map[6] = {0, 8192, 1, 0x2, 3, 4096};
  EXPECT_EQ(format_args(mmap, file_map, none), "len: 8192, prot: READ, flags: PRIVATE, fd: 3, off: 0x1000");
  SyscallSignature kill{"kill", {{"pid", "pid_t", false}, {"sig", "int", false}}, true};
  const uint64_t kargs[6] = {1234, 9, 0, 0, 0, 0};
  auto comm = [](uint32_t tid) { return tid == 1234 ? std::string_view("cat") : std::string_view{}; };
  EXPECT_EQ(format_args(kill, kargs, comm), "pid: 1234 (cat), sig: KILL");
}

TEST(TraceFormat, ReturnValues) {
  auto none = [](uint32_t) { return std::string_view{}; };
  EXPECT_EQ(format_return("openat", -2, none), "-1 ENOENT (No such file or directory)");
  EXPECT_EQ(format_return("kill", -3, none), "-1 ESRCH (No such process)");
  EXPECT_EQ(format_return("read", 832, none), "832");
  EXPECT_EQ(format_return("brk", 0x55a85070e000, none), "0x55a85070e000");
  EXPECT_EQ(format_return("poll", 0, none), "0 (Timeout)");
  auto comm = [](uint32_t) { return std::string_view("cat"); };
  EXPECT_EQ(format_return("set_tid_address", 6791, comm), "6791 (cat)");
}

}  // namespace
}  // namespace sonde::trace

namespace sonde::trace {
namespace {

TEST(TraceStrings, PathArgumentsFromTheirDeclarations) {
  // perf's rule: a `const char *` named *name or *path*.
  SyscallSignature openat{"openat",
                          {{"dfd", "int", false}, {"filename", "const char *", true}, {"flags", "int", false}},
                          true};
  auto none = [](uint32_t) { return std::string_view{}; };
  ArgStrings s;
  s.text[1] = "/etc/passwd";
  s.present = 1 << 1;
  const uint64_t args[6] = {static_cast<uint64_t>(-100), 0x1234, 0, 0, 0, 0};
  EXPECT_EQ(format_args(openat, args, none, &s), "dfd: CWD, filename: \"/etc/passwd\"");
  EXPECT_EQ(format_args(openat, args, none), "dfd: CWD, filename: 0x1234");
}

TEST(TraceStrings, PayloadIsBoundedByTheRecord) {
  const uint8_t ok[] = {1, 1, 0, 0, 1, 0, 0, 0, '/', 'x', 0, 0};
  StringPayload p;
  ASSERT_TRUE(parse_string_payload(ok, p));
  EXPECT_EQ(p.nr, 257u);
  EXPECT_EQ(p.arg, 1u);
  EXPECT_EQ(p.text, "/x");
  const uint8_t unterminated[] = {1, 1, 0, 0, 1, 0, 0, 0, '/', 'x'};
  ASSERT_TRUE(parse_string_payload(unterminated, p));
  EXPECT_EQ(p.text, "/x");
  const uint8_t short_one[] = {1, 1, 0, 0, 1, 0, 0, 0};
  EXPECT_FALSE(parse_string_payload(short_one, p));
  const uint8_t bad_arg[] = {1, 1, 0, 0, 9, 0, 0, 0, 'a', 0};
  EXPECT_FALSE(parse_string_payload(bad_arg, p));
}

}  // namespace
}  // namespace sonde::trace
