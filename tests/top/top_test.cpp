// `sonde top` end to end: the interactive screen under tmux (send-keys,
// capture-pane) on a fixture whose hot function is known, the --stdio batch
// mode, and its usage errors. Screens are polled with bounded retries; no
// test asserts a duration.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "record/record_test_util.h"

using namespace sonde::test;

namespace {

// The first table row of a screen (the line after the column names), or "".
std::string first_row(const std::string& screen) {
  auto ls = lines(screen);
  for (size_t i = 0; i + 1 < ls.size(); ++i)
    if (ls[i].find("Shared Object") != std::string::npos) return ls[i + 1];
  return "";
}

// N of the header's "sonde top #N", or 0.
int refresh_number(const std::string& screen) {
  auto at = screen.find("sonde top #");
  return at == std::string::npos ? 0 : std::atoi(screen.c_str() + at + 11);
}

class TopScreen : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(compile_fixture("hot_loop.c", fixture_));
    victim_ = spawn({fixture_, "600"});
    ASSERT_GT(victim_, 0);
  }
  void TearDown() override {
    if (started_) tmux({"kill-server"});  // this test's own server (-L): the session and anything left in it
    if (victim_ > 0) {
      ::kill(victim_, SIGKILL);
      wait_for(victim_);
    }
  }

  RunResult tmux(std::vector<std::string> args) {
    args.insert(args.begin(), {"tmux", "-L", socket_});
    return run(args);
  }

  // Runs `sonde top ARGS` in a 200x50 tmux session; the shell around it
  // writes sonde's pid, then the terminal's settings after it (to check
  // they were restored) and last its exit status.
  void start(const std::string& args) {
    std::string cmd = "sh -c 'echo $$ > " + pid_file_ + "; exec " + sonde_bin() + " top " + args + "'; s=$?; stty -a > " +
                      stty_file_ + "; echo $s > " + status_file_;
    auto r = tmux({"new-session", "-d", "-s", "top", "-x", "200", "-y", "50", cmd});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    started_ = true;
  }
  std::string pid_arg() const { return "-p " + std::to_string(victim_); }
  std::string screen() { return tmux({"capture-pane", "-p", "-t", "top"}).out; }
  void keys(const std::string& k) { tmux({"send-keys", "-t", "top", k}); }

  // Waits until `ok(screen)` holds (or sonde exits); returns the
  // last screen seen (or "" when it never held).
  std::string wait_screen(const std::function<bool(const std::string&)>& ok) {
    std::string seen;
    bool held = wait_until([&] {
      seen = screen();
      return ok(seen) || !status().empty();  // or sonde exited
    });
    return held && ok(seen) ? seen : "";
  }
  std::string wait_text(const std::string& text) {
    return wait_screen([&](const std::string& s) { return s.find(text) != std::string::npos; });
  }
  // The exit status the wrapper wrote ("" while sonde runs).
  std::string status() {
    std::string s = slurp(status_file_);
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }
  std::string wait_status() {
    wait_until([&] { return !status().empty(); });
    return status();
  }
  bool fixture_alive() const {
    std::string st = slurp("/proc/" + std::to_string(victim_) + "/stat");
    auto close = st.rfind(')');
    return close != std::string::npos && close + 2 < st.size() && (st[close + 2] == 'R' || st[close + 2] == 'S');
  }

  TempDir dir_;
  std::string fixture_ = dir_ / "hot_loop";
  std::string pid_file_ = dir_ / "top.pid", status_file_ = dir_ / "status", stty_file_ = dir_ / "stty";
  std::string socket_ = "sonde-top-" + std::to_string(::getpid());
  pid_t victim_ = -1;
  bool started_ = false;
};

TEST_F(TopScreen, HotFunctionIsTheFirstRowWithinThreeRefreshes) {
  start(pid_arg() + " -d 0.5");
  std::string s = wait_screen([](const std::string& s) {
    return refresh_number(s) >= 3 || first_row(s).find("hot_function") != std::string::npos;
  });
  ASSERT_FALSE(s.empty()) << "no table";
  EXPECT_NE(first_row(s).find("hot_function"), std::string::npos) << s;
  EXPECT_LE(refresh_number(s), 3) << s;
  EXPECT_NE(first_row(s).find("hot_loop"), std::string::npos) << s;  // the DSO column
  EXPECT_NE(s.find("cpu-clock at 4000 Hz, pid " + std::to_string(victim_)), std::string::npos) << s;
}

TEST_F(TopScreen, ZoomSortAndCallGraphKeysChangeTheScreen) {
  start("-g --no-children " + pid_arg() + " -d 0.5");
  ASSERT_FALSE(wait_screen([](const std::string& s) { return first_row(s).find("hot_function") != std::string::npos; }).empty());
  EXPECT_NE(screen().find("Sort: self."), std::string::npos);

  keys("t");
  std::string zoomed = wait_text("Zoomed into thread hot_loop " + std::to_string(victim_) + "/" + std::to_string(victim_));
  ASSERT_FALSE(zoomed.empty()) << screen();
  EXPECT_NE(zoomed.find("(t again: zoom out)"), std::string::npos);
  keys("t");
  EXPECT_FALSE(wait_screen([](const std::string& s) { return s.find("Zoomed into") == std::string::npos; }).empty());

  keys("c");
  EXPECT_FALSE(wait_text("Sort: children.").empty()) << screen();
  EXPECT_FALSE(wait_text("Children      Self").empty()) << screen();
  keys("c");
  ASSERT_FALSE(wait_screen([](const std::string& s) {
                 return s.find("Sort: self.") != std::string::npos && first_row(s).find("hot_function") != std::string::npos;
               }).empty());

  // The graph of hot_function, the entry first, then its callers (a leaf
  // without its own frame: frame-pointer chains skip caller_function).
  keys("g");
  std::string graph = wait_screen([](const std::string& s) {
    return s.find("Call graph of hot_function [hot_loop]") != std::string::npos && s.find("--hot_function") != std::string::npos &&
           s.find("  main") != std::string::npos;
  });
  ASSERT_FALSE(graph.empty()) << screen();
  keys("Escape");
  EXPECT_FALSE(wait_screen([](const std::string& s) { return s.find("Call graph of") == std::string::npos && !first_row(s).empty(); }).empty());
  keys("Enter");
  EXPECT_FALSE(wait_text("Call graph of hot_function").empty()) << screen();
  keys("Enter");

  keys("?");
  EXPECT_FALSE(wait_text("sonde top keys").empty()) << screen();
  keys("x");
  EXPECT_FALSE(wait_screen([](const std::string& s) { return s.find("sonde top keys") == std::string::npos; }).empty());
  keys("q");
  EXPECT_EQ(wait_status(), "0");
}

TEST_F(TopScreen, QuitExitsZeroRestoresTheTerminalAndLeavesTheFixtureRunning) {
  start(pid_arg() + " -d 0.5");
  ASSERT_FALSE(wait_screen([](const std::string& s) { return !first_row(s).empty(); }).empty()) << screen();
  const pid_t top = std::atoi(slurp(pid_file_).c_str());
  ASSERT_GT(top, 0);
  keys("q");
  ASSERT_EQ(wait_status(), "0");
  EXPECT_NE(::kill(top, 0), 0) << "sonde top is still running";
  std::string stty = slurp(stty_file_);
  EXPECT_NE(stty.find(" icanon"), std::string::npos) << stty;  // not "-icanon": raw mode undone
  EXPECT_NE(stty.find(" echo "), std::string::npos) << stty;
  EXPECT_TRUE(fixture_alive());
}

TEST_F(TopScreen, SigtermRestoresTheTerminalAndExits143) {
  start(pid_arg() + " -d 0.5");
  ASSERT_FALSE(wait_screen([](const std::string& s) { return !first_row(s).empty(); }).empty()) << screen();
  const pid_t top = std::atoi(slurp(pid_file_).c_str());
  ASSERT_GT(top, 0);
  ::kill(top, SIGTERM);
  ASSERT_EQ(wait_status(), "143");
  std::string stty = slurp(stty_file_);
  EXPECT_NE(stty.find(" icanon"), std::string::npos) << stty;
  EXPECT_TRUE(fixture_alive());
}

TEST_F(TopScreen, StdioPrintsOneTablePerRefreshAndExitsZero) {
  auto r = run({sonde_bin(), "top", "--stdio", "-d", "0.5", "--iterations", "2", "-p", std::to_string(victim_)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_lines_with(r.out, "sonde top #"), 2u) << r.out;
  EXPECT_EQ(count_lines_with(r.out, "  Overhead  Shared Object"), 2u) << r.out;
  EXPECT_GE(count_lines_with(r.out, "hot_function"), 1u) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_TRUE(fixture_alive());
}

TEST(Top, StdioSystemWideByDefault) {
  auto r = run({sonde_bin(), "top", "--stdio", "-d", "0.3", "--iterations", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_lines_with(r.out, "sonde top #1 - cpu-clock at 4000 Hz, all CPUs"), 1u) << r.out;
}

TEST(Top, BadValuesGiveOneLineAndExit2) {
  for (std::vector<std::string> args : {std::vector<std::string>{"-d", "0"}, {"-d", "abc"}, {"-d", "-1"}, {"-d", "inf"},
                                        {"--iterations", "0"}, {"--iterations", "x"}, {"-F", "0"}, {"-p", "abc"},
                                        {"-s", "nope"}, {"-E", "0"}, {"--children", "--no-children"}}) {
    std::vector<std::string> argv{sonde_bin(), "top", "--stdio"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run(argv);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args.back() << ": " << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("sonde: ", 0), 0u) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(Top, NoSuchProcessIsAOneLineRuntimeError) {
  auto r = run({sonde_bin(), "top", "--stdio", "-p", "1073741823"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
}

// Without a PMU, cycles falls back to cpu-clock with perf's warning (as
// perf top does) and the header names what is sampled; another hardware
// event is one line and exit 1.
TEST(Top, CyclesFallsBackToCpuClockAndOtherHardwareEventsAreRefused) {
  auto r = run({sonde_bin(), "top", "--stdio", "-e", "cycles", "-d", "0.3", "--iterations", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "sonde top: warning: The cycles event is not supported, trying to fall back to cpu-clock\n");
  EXPECT_EQ(count_lines_with(r.out, "sonde top #1 - cpu-clock at 4000 Hz, all CPUs"), 1u) << r.out;
  r = run({sonde_bin(), "top", "--stdio", "-e", "instructions", "-d", "0.3", "--iterations", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("not supported on this machine (no hardware PMU)"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

}  // namespace
