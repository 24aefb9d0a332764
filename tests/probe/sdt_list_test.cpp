// `sonde sdt add|list|remove` and the note parser against readelf -n.
#include <gtest/gtest.h>

#include <filesystem>

#include <fstream>
#include <regex>
#include <sstream>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

struct ReadelfSite {
  std::string provider, name, args;
  uint64_t pc = 0, sem = 0;
};

std::vector<ReadelfSite> readelf_sites(const std::string& path) {
  auto r = sh("LC_ALL=C readelf -n '" + path + "'");
  std::vector<ReadelfSite> out;
  for (const auto& l : lines(r.out)) {
    std::smatch m;
    if (std::regex_search(l, m, std::regex("Provider: (.*)$"))) out.push_back({m[1], "", "", 0, 0});
    else if (!out.empty() && std::regex_search(l, m, std::regex("Name: (.*)$"))) out.back().name = m[1];
    else if (!out.empty() && std::regex_search(l, m, std::regex("Location: 0x([0-9a-f]+), Base: 0x[0-9a-f]+, Semaphore: 0x([0-9a-f]+)"))) {
      out.back().pc = std::stoull(m[1], nullptr, 16);
      out.back().sem = std::stoull(m[2], nullptr, 16);
    } else if (!out.empty() && std::regex_search(l, m, std::regex("Arguments: (.*)$"))) out.back().args = m[1];
  }
  return out;
}

}  // namespace

TEST(SdtList, AgreesWithReadelf) {
  TempDir dir;
  ASSERT_TRUE(compile_fixture("sdt_forms.c", dir / "forms", "-O2"));
  auto expected = readelf_sites(dir / "forms");
  ASSERT_EQ(expected.size(), 9u);
  auto r = run({sonde_bin(), "sdt", "list", dir / "forms", "--buildid-dir", dir / "cache"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto got = lines(r.out);
  ASSERT_EQ(got.size(), expected.size()) << r.out;
  for (size_t i = 0; i < got.size(); ++i) {
    const auto& e = expected[i];
    std::string sem = e.sem ? "semaphore=0x" + (std::stringstream() << std::hex << e.sem).str() : "semaphore=no";
    std::string pc = "0x" + (std::stringstream() << std::hex << e.pc).str();
    std::string prefix = "%" + e.provider + ":" + e.name + " " + dir / "forms" + " ";
    EXPECT_EQ(got[i].rfind(prefix, 0), 0u) << got[i];
    EXPECT_NE(got[i].find(" " + pc + " " + sem + " " + (e.args.empty() ? "-" : e.args)), std::string::npos)
        << got[i] << "\nexpected pc " << pc << " " << sem << " " << e.args;
  }
}

TEST(SdtList, CacheAddListRemove) {
  TempDir dir;
  ASSERT_TRUE(compile_fixture("sdt_forms.c", dir / "forms", "-O2"));
  auto r = run({sonde_bin(), "sdt", "add", dir / "forms", "--buildid-dir", dir / "cache"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("9 probe(s), 9 site(s)"), std::string::npos) << r.out;
  // perf's probes file next to sonde's.
  auto bid = sh("LC_ALL=C readelf -n '" + dir / "forms" + "' | sed -n 's/.*Build ID: //p'").out;
  bid.erase(bid.find_last_not_of("\n ") + 1);
  std::ifstream probes(dir / "cache" + dir / "forms" + "/" + bid + "/probes");
  std::string text((std::istreambuf_iterator<char>(probes)), {});
  EXPECT_NE(text.find("%sdt_sfix:guarded=guarded\np:sdt_sfix/guarded " + dir / "forms" + ":0x"), std::string::npos) << text;

  r = run({sonde_bin(), "sdt", "list", "%sfix:r*", "--buildid-dir", dir / "cache"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines(r.out).size(), 2u) << r.out;
  EXPECT_EQ(count_lines_with(r.out, "%sfix:regs "), 1u);
  EXPECT_EQ(count_lines_with(r.out, "%sfix:riprel "), 1u);
  r = run({sonde_bin(), "sdt", "list", "--buildid-dir", dir / "cache"});
  EXPECT_EQ(lines(r.out).size(), 9u) << r.out;

  r = run({sonde_bin(), "sdt", "remove", bid, "--buildid-dir", dir / "cache"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run({sonde_bin(), "sdt", "list", "--buildid-dir", dir / "cache"});
  EXPECT_EQ(r.out, "");
  r = run({sonde_bin(), "sdt", "remove", dir / "forms", "--buildid-dir", dir / "cache"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not in the probe cache"), std::string::npos);
}

TEST(SdtList, BadInput) {
  TempDir dir;
  auto r = run({sonde_bin(), "sdt", "list", "/etc/passwd"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is not an ELF file"), std::string::npos) << r.err;
  r = run({sonde_bin(), "sdt", "list", dir / "missing"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot open"), std::string::npos) << r.err;
  r = run({sonde_bin(), "sdt", "add", dir.path(), "--buildid-dir", dir / "cache"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  // A FIFO is not opened (the open would block until a writer came): listing
  // it, adding it or pinning a probe to it are usage errors at once.
  ASSERT_EQ(sh("mkfifo " + (dir / "fifo")).exit_code, 0);
  for (std::vector<std::string> argv :
       {std::vector<std::string>{"timeout", "-s", "KILL", "60", sonde_bin(), "sdt", "list", dir / "fifo"},
        {"timeout", "-s", "KILL", "60", sonde_bin(), "sdt", "add", dir / "fifo", "--buildid-dir", dir / "cache"},
        {"timeout", "-s", "KILL", "60", sonde_bin(), "record", "-e", "%a:b@" + (dir / "fifo"), "-o", dir / "x.data",
         "--", "true"}}) {
    r = run(argv);
    EXPECT_EQ(r.exit_code, 2) << argv[5] << " (137: it hung)\n" << r.err;
    EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "x.data"));
  // A corrupt note: the first note's pc points outside every segment.
  ASSERT_TRUE(compile_fixture("sdt_forms.c", dir / "forms", "-O2"));
  auto off = sh("python3 -c \"import sys;d=open('" + dir / "forms" +
                "','rb').read();i=d.find(b'stapsdt\\0');print(i+8)\"");
  ASSERT_EQ(off.exit_code, 0);
  long pc_at = std::stol(off.out);
  sh("printf '\\377\\377\\377\\377\\377\\377\\377\\177' | dd of='" + dir / "forms" + "' bs=1 seek=" + std::to_string(pc_at) +
     " conv=notrunc 2>/dev/null");
  r = run({sonde_bin(), "sdt", "list", dir / "forms"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("corrupt note"), std::string::npos) << r.err;
  // Truncated descriptor sizes.
  sh("python3 -c \"d=bytearray(open('" + dir / "forms" + "','rb').read());i=d.find(b'stapsdt\\0');d[i-8:i-4]=(4).to_bytes(4,'little');open('" +
     dir / "forms" + "','wb').write(d)\"");
  r = run({sonde_bin(), "sdt", "list", dir / "forms"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("corrupt .note.stapsdt"), std::string::npos) << r.err;
}

#include "probe/sdt_note.h"

TEST(SdtList, OtherClassesAndMachinesAgreeWithReadelf) {
  TempDir dir;
  const std::string inc = "-I/usr/include/x86_64-linux-gnu -O1 -c '" + fixtures_dir() + "/sdt_cross.c'";
  struct Target {
    std::string name, cc, ld;
    uint16_t machine;
  };
  std::vector<Target> targets = {
      {"i386", "clang -target i386-linux-gnu " + inc, "ld -m elf_i386 -e _start", 3},
      {"aarch64", "clang -target aarch64-linux-gnu " + inc, "ld.lld -e _start", 183},
  };
  for (const auto& t : targets) {
    std::string obj = dir / (t.name + ".o"), bin = dir / t.name;
    if (sh(t.cc + " -o '" + obj + "'").exit_code != 0 || sh(t.ld + " '" + obj + "' -o '" + bin + "'").exit_code != 0) {
      std::printf("skipping %s: no cross toolchain\n", t.name.c_str());
      continue;
    }
    auto expected = readelf_sites(bin);
    ASSERT_FALSE(expected.empty()) << t.name;
    auto f = sonde::probe::scan_sdt_file(bin);
    EXPECT_EQ(f.machine, t.machine);
    EXPECT_EQ(f.elf64, t.name != "i386");
    ASSERT_EQ(f.sites.size(), expected.size()) << t.name;
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(f.sites[i].provider, expected[i].provider);
      EXPECT_EQ(f.sites[i].name, expected[i].name);
      EXPECT_EQ(f.sites[i].pc, expected[i].pc);
      EXPECT_EQ(f.sites[i].args, expected[i].args);
      {
        EXPECT_TRUE(f.sites[i].parsed.ok()) << f.sites[i].parsed.error;
      }
    }
    auto r = run({sonde_bin(), "sdt", "list", bin});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(lines(r.out).size(), expected.size());
  }
}
