// scripts/package.sh on this build: the package installs into a scratch root
// (dpkg -x, as dpkg would unpack it), its sonde runs and records, its man
// pages open, its bash completion completes, and its dependencies are the
// computed ones.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

class Package : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    auto r = sh(std::string("cd ") + SONDE_SOURCE_DIR + " && BUILD_DIR=" + SONDE_BUILD_DIR + " scripts/package.sh " +
                dir_->path() + "/out");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    for (const auto& e : std::filesystem::directory_iterator(dir_->path() + "/out")) {
      if (e.path().extension() == ".deb") deb_ = e.path();
      if (e.path().extension() == ".ddeb") ddeb_ = e.path();
    }
    ASSERT_FALSE(deb_.empty());
    r = sh("dpkg -x " + deb_ + " " + root());
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string root() { return dir_->path() + "/root"; }
  static std::string installed() { return root() + "/usr/bin/sonde"; }

  static TempDir* dir_;
  static std::string deb_, ddeb_;

 public:
  static void IsNamedAsDebianNamesPackagesAndHasItsDebugSymbolsApart();
  static void InstalledSondeRunsAndRecords();
  static void ManPagesOpenAndNameEveryOptionOfTheirSubcommand();
  static void DependsOnTheLibrariesItLinksAndThoseItLoadsOnFirstUse();
  static void BashCompletionOffersSubcommandsAndOptions();
};
TempDir* Package::dir_ = nullptr;
std::string Package::deb_, Package::ddeb_;

}  // namespace

void Package::IsNamedAsDebianNamesPackagesAndHasItsDebugSymbolsApart() {
  EXPECT_TRUE(std::filesystem::path(deb_).filename().string().starts_with("sonde_")) << deb_;
  EXPECT_TRUE(deb_.ends_with("_amd64.deb")) << deb_;
  EXPECT_FALSE(ddeb_.empty());
  // The installed binary is stripped: no .debug_info section.
  auto r = sh("readelf -S " + installed());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find(".debug_info"), std::string::npos);
  EXPECT_EQ(r.out.find(".symtab"), std::string::npos);
}

void Package::InstalledSondeRunsAndRecords() {
  auto v = run({installed(), "--version"});
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_TRUE(v.out.starts_with("sonde ")) << v.out;
  const std::string data = dir_->path() + "/true.data";
  auto r = run({installed(), "record", "-q", "-N", "-o", data, "--", "true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto s = run({installed(), "report", "--stats", "-i", data});
  EXPECT_EQ(s.exit_code, 0) << s.err;
  EXPECT_NE(s.out.find("COMM events:"), std::string::npos) << s.out;
}

void Package::ManPagesOpenAndNameEveryOptionOfTheirSubcommand() {
  const std::string page = root() + "/usr/share/man/man1/sonde-record.1.gz";
  auto r = sh("MANWIDTH=200 man -l " + page + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("sonde-record - Record a profile"), std::string::npos) << r.out;
  for (const char* option : {"--call-graph", "--switch-output", "--off-cpu", "-z,--compress"})
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
  for (const char* other : {"sonde.1.gz", "sonde-report.1.gz", "sonde-sdt-list.1.gz"})
    EXPECT_TRUE(std::filesystem::exists(root() + "/usr/share/man/man1/" + other)) << other;
  EXPECT_TRUE(std::filesystem::exists(root() + "/usr/share/bash-completion/completions/sonde"));
}

void Package::DependsOnTheLibrariesItLinksAndThoseItLoadsOnFirstUse() {
  auto r = sh("dpkg-deb -f " + deb_ + " Depends");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // libelf1: linked (dpkg-shlibdeps); the others are dlopen'ed on first use.
  for (const char* pkg : {"libelf1", "libbpf1", "libdw1", "libzstd1", "liblzma5"})
    EXPECT_NE(r.out.find(pkg), std::string::npos) << pkg << " not in: " << r.out;
  EXPECT_NE(sh("dpkg-deb -f " + deb_ + " Recommends").out.find("libdebuginfod1"), std::string::npos);
}

void Package::BashCompletionOffersSubcommandsAndOptions() {
  const std::string script = root() + "/usr/share/bash-completion/completions/sonde";
  auto r = sh("PATH=" + root() + "/usr/bin:$PATH bash -c 'source " + script +
              "; COMP_WORDS=(sonde rep); COMP_CWORD=1; _sonde; echo ${COMPREPLY[@]};"
              " COMP_WORDS=(sonde record --call); COMP_CWORD=2; _sonde; echo ${COMPREPLY[@]}'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "report\n--call-graph\n");
}

// One test: making the package costs ~15 s, so it is made once.
TEST_F(Package, InstallsIntoAScratchRootAndWorksFromThere) {
  {
    SCOPED_TRACE("IsNamedAsDebianNamesPackagesAndHasItsDebugSymbolsApart");
    IsNamedAsDebianNamesPackagesAndHasItsDebugSymbolsApart();
  }
  {
    SCOPED_TRACE("InstalledSondeRunsAndRecords");
    InstalledSondeRunsAndRecords();
  }
  {
    SCOPED_TRACE("ManPagesOpenAndNameEveryOptionOfTheirSubcommand");
    ManPagesOpenAndNameEveryOptionOfTheirSubcommand();
  }
  {
    SCOPED_TRACE("DependsOnTheLibrariesItLinksAndThoseItLoadsOnFirstUse");
    DependsOnTheLibrariesItLinksAndThoseItLoadsOnFirstUse();
  }
  {
    SCOPED_TRACE("BashCompletionOffersSubcommandsAndOptions");
    BashCompletionOffersSubcommandsAndOptions();
  }
}
