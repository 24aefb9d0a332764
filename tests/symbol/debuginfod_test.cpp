// debuginfod: a real server on 127.0.0.1 serving a fixture that exists
// nowhere else; then the same with the server stopped.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include "symbol/fixture_util.h"
#include "symbol/symbolizer.h"

namespace sonde {
namespace {

using test::TempDir;

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

class DebuginfodServer {
 public:
  DebuginfodServer(const std::string& dir, const std::string& db, int port, const std::string& log) {
    pid_ = fork();
    if (pid_ == 0) {
      freopen(log.c_str(), "w", stdout);
      freopen(log.c_str(), "a", stderr);
      std::string p = std::to_string(port);
      execlp("debuginfod", "debuginfod", "-F", dir.c_str(), "-p", p.c_str(), "-d", db.c_str(), "-t", "1",
             static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~DebuginfodServer() { stop(); }
  void stop() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }

 private:
  pid_t pid_ = -1;
};

TEST(Debuginfod, ResolvesFromARealServerAndDegradesWhenItIsGone) {
  TempDir t;
  std::filesystem::create_directories(t / "srv");
  std::string bin = t / "srv/only_here";
  // A random build-id makes sure no other copy of this object exists.
  std::mt19937_64 rng{std::random_device{}()};
  std::string id_hex = fmt::format("{:016x}{:016x}{:08x}", rng(), rng(), static_cast<uint32_t>(rng()));
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin, "-Wl,--build-id=0x" + id_hex));
  ASSERT_EQ(test::build_id_of(bin), id_hex);
  auto nm = test::nm_symbols(bin);
  uint64_t off = test::file_offset_of(bin, nm.at("sym_beta").addr + 3);
  BuildId id = *BuildId::from_hex(id_hex);

  int port = free_port();
  std::string url = fmt::format("http://127.0.0.1:{}", port);
  DebuginfodServer server(t / "srv", t / "db.sqlite", port, t / "server.log");
  // Wait until the server has scanned the folder (a fresh client cache per
  // probe, so a 404 from before the scan is not remembered).
  int probe = 0;
  const bool ready = test::wait_until([&] {
    auto r = test::sh("DEBUGINFOD_CACHE_PATH='" + t.path() + "/probe" + std::to_string(probe++) +
                      "' DEBUGINFOD_URLS=" + url + " debuginfod-find debuginfo " + id_hex + " >/dev/null 2>&1");
    return r.exit_code == 0;
  });
  ASSERT_TRUE(ready) << test::sh("cat '" + t.path() + "/server.log'").out;

  SymbolizerOptions o;
  o.use_cache = false;
  o.debug_roots = {t / "no-debug-root"};
  // sonde's defaults, as the CLI sets them (kernel::set_debuginfod_defaults).
  test::SavedEnv timeout("DEBUGINFOD_TIMEOUT", "2"), retries("DEBUGINFOD_RETRY_LIMIT", "0");
  test::SavedEnv cache_env("DEBUGINFOD_CACHE_PATH", t / "client-cache");
  {
    test::SavedEnv urls("DEBUGINFOD_URLS", url);
    Symbolizer s(o);
    ObjectHandle h = s.object(id, "/nonexistent/only_here");
    EXPECT_EQ(s.info(h).source, "debuginfod");
    ResolvedSymbol r = s.lookup(h, off);
    EXPECT_EQ(r.name, "sym_beta");
    EXPECT_EQ(r.offset, 3u);
  }
  server.stop();
  {
    // Downloaded files stay in the client cache: still resolves offline.
    test::SavedEnv urls("DEBUGINFOD_URLS", url);
    Symbolizer s(o);
    EXPECT_EQ(s.lookup(s.object(id, "/nonexistent/only_here"), off).name, "sym_beta");
  }
  {
    // A fresh client cache and a dead server: quick failure with a note,
    // and the server is not asked again for the next object.
    test::SavedEnv cache2("DEBUGINFOD_CACHE_PATH", t / "client-cache2");
    test::SavedEnv urls("DEBUGINFOD_URLS", url);
    Symbolizer s(o);
    auto start = std::chrono::steady_clock::now();
    ObjectHandle h = s.object(id, "/nonexistent/only_here");
    ObjectHandle h2 = s.object(*BuildId::from_hex("00112233445566778899aabbccddeeff00112233"), "/nonexistent/other");
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Printed, not asserted (tests do not time): the notes below say the
    // server was given up after its first failure.
    std::printf("debuginfod stopped: 2 objects failed in %.3f s\n", secs);
    EXPECT_EQ(s.lookup(h, off).reason, Reason::kNotFound);
    EXPECT_EQ(s.lookup(h2, off).reason, Reason::kNotFound);
    ASSERT_FALSE(s.notes().empty());
    std::string all;
    for (const auto& n : s.notes()) all += n + "\n";
    EXPECT_NE(all.find("debuginfod (" + url + ") failed"), std::string::npos) << all;
    EXPECT_EQ(test::count_lines_with(all, "debuginfod"), 1u) << all;
  }
}

TEST(Debuginfod, AStalledServerCostsOneTimeoutThenIsSkipped) {
  TempDir t;
  // Listens but never answers: connections succeed, no byte ever comes back.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(fd, 16), 0);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  std::string url = fmt::format("http://127.0.0.1:{}", ntohs(a.sin_port));
  test::SavedEnv cache_env("DEBUGINFOD_CACHE_PATH", t / "client-cache");
  test::SavedEnv urls("DEBUGINFOD_URLS", url);
  SymbolizerOptions o;
  o.use_cache = false;
  o.debug_roots = {t / "no-debug-root"};
  // sonde's defaults, as the CLI sets them (kernel::set_debuginfod_defaults).
  test::SavedEnv timeout("DEBUGINFOD_TIMEOUT", "1"), retries("DEBUGINFOD_RETRY_LIMIT", "0");
  Symbolizer s(o);
  auto start = std::chrono::steady_clock::now();
  for (const char* id : {"00112233445566778899aabbccddeeff00112233", "11112233445566778899aabbccddeeff00112233",
                         "22112233445566778899aabbccddeeff00112233"})
    EXPECT_EQ(s.lookup(s.object(*BuildId::from_hex(id), "/nonexistent/x"), 0).reason, Reason::kNotFound);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("debuginfod stalled: 3 objects failed in %.3f s (timeout 1 s)\n", secs);
  // The server was asked once: one connection reached it for three objects.
  fcntl(fd, F_SETFL, O_NONBLOCK);
  size_t connections = 0;
  for (int c; (c = accept(fd, nullptr, nullptr)) >= 0; ++connections) close(c);
  EXPECT_EQ(connections, 1u);
  std::string all;
  for (const auto& n : s.notes()) all += n + "\n";
  EXPECT_EQ(test::count_lines_with(all, "debuginfod"), 1u) << all;
  EXPECT_EQ(test::count_lines_with(all, "not asked again in this run"), 1u) << all;
  EXPECT_EQ(test::count_lines_with(all, ": not found"), 3u) << all;
  close(fd);
}

}  // namespace
}  // namespace sonde
