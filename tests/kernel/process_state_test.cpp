// The process-wide state the CLI sets before a subcommand runs
// (src/kernel/process_environment.h, fatal_signals.h): what each sets, and
// that a user's own setting wins.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "kernel/process_environment.h"
#include "support/test_support.h"

namespace sonde {
namespace {

using test::SavedEnv;


TEST(ProcessEnvironment, DebuginfodDefaultsAreSetWhenDebuginfodIsUsed) {
  SavedEnv urls("DEBUGINFOD_URLS"), timeout("DEBUGINFOD_TIMEOUT"), retries("DEBUGINFOD_RETRY_LIMIT");
  for (const char* name : {"DEBUGINFOD_URLS", "DEBUGINFOD_TIMEOUT", "DEBUGINFOD_RETRY_LIMIT"}) unsetenv(name);
  setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1", 1);
  kernel::set_debuginfod_defaults(3);
  EXPECT_STREQ(getenv("DEBUGINFOD_TIMEOUT"), "3");
  EXPECT_STREQ(getenv("DEBUGINFOD_RETRY_LIMIT"), "0");
}

TEST(ProcessEnvironment, AUsersDebuginfodSettingsWin) {
  SavedEnv urls("DEBUGINFOD_URLS"), timeout("DEBUGINFOD_TIMEOUT"), retries("DEBUGINFOD_RETRY_LIMIT");
  for (const char* name : {"DEBUGINFOD_URLS", "DEBUGINFOD_TIMEOUT", "DEBUGINFOD_RETRY_LIMIT"}) unsetenv(name);
  setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1", 1);
  setenv("DEBUGINFOD_TIMEOUT", "30", 1);
  setenv("DEBUGINFOD_RETRY_LIMIT", "2", 1);
  kernel::set_debuginfod_defaults();
  EXPECT_STREQ(getenv("DEBUGINFOD_TIMEOUT"), "30");
  EXPECT_STREQ(getenv("DEBUGINFOD_RETRY_LIMIT"), "2");
}

TEST(ProcessEnvironment, WithoutDebuginfodTheEnvironmentIsLeftAlone) {
  SavedEnv urls("DEBUGINFOD_URLS"), timeout("DEBUGINFOD_TIMEOUT"), retries("DEBUGINFOD_RETRY_LIMIT");
  for (const char* name : {"DEBUGINFOD_URLS", "DEBUGINFOD_TIMEOUT", "DEBUGINFOD_RETRY_LIMIT"}) unsetenv(name);
  kernel::set_debuginfod_defaults();
  EXPECT_EQ(getenv("DEBUGINFOD_TIMEOUT"), nullptr);
  setenv("DEBUGINFOD_URLS", "", 1);
  kernel::set_debuginfod_defaults();
  EXPECT_EQ(getenv("DEBUGINFOD_TIMEOUT"), nullptr);
  EXPECT_EQ(getenv("DEBUGINFOD_RETRY_LIMIT"), nullptr);
}

}  // namespace
}  // namespace sonde
