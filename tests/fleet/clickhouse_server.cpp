#include "clickhouse_server.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "fleet/http_client.h"
#include "support/test_support.h"
#include "util/error.h"

namespace sonde::test {

namespace {

const char* kServer = "/usr/sbin/clickhouse-server";

uint16_t free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

}  // namespace

ClickHouseServer::ClickHouseServer(const std::string& dir) : dir_(dir) {
  if (::access(kServer, X_OK) != 0) {
    error_ = "clickhouse-server is not installed (apt-get install clickhouse-server)";
    return;
  }
  http_port_ = free_port();
  tcp_port_ = free_port();
  std::filesystem::create_directories(dir_ + "/data");
  std::ofstream(dir_ + "/config.xml") << fmt::format(
      "<yandex><logger><level>warning</level><log>{0}/server.log</log><errorlog>{0}/error.log</errorlog>"
      "<console>0</console></logger><http_port>{1}</http_port><tcp_port>{2}</tcp_port>"
      "<listen_host>127.0.0.1</listen_host><path>{0}/data/</path><tmp_path>{0}/tmp/</tmp_path>"
      "<user_files_path>{0}/user_files/</user_files_path><format_schema_path>{0}/schemas/</format_schema_path>"
      "<users_config>{0}/users.xml</users_config><default_profile>default</default_profile>"
      "<default_database>default</default_database><mark_cache_size>268435456</mark_cache_size></yandex>\n",
      dir_, http_port_, tcp_port_);
  std::ofstream(dir_ + "/users.xml")
      << "<yandex><profiles><default></default></profiles><users><default><password></password><networks>"
         "<ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>"
         "<quotas><default></default></quotas></yandex>\n";
  start();
}

ClickHouseServer::~ClickHouseServer() { stop(); }

bool ClickHouseServer::start() {
  pid_ = ::fork();
  if (pid_ == 0) {
    const std::string config = "--config-file=" + dir_ + "/config.xml";
    const std::string out = dir_ + "/stdout";
    FILE* f = std::freopen(out.c_str(), "a", stdout);
    (void)f;
    ::dup2(STDOUT_FILENO, STDERR_FILENO);
    ::execl(kServer, kServer, config.c_str(), nullptr);
    ::_exit(127);
  }
  if (pid_ < 0 || !wait_ready()) {
    error_ = "clickhouse-server did not start (see " + dir_ + "/stdout)";
    stop();
    return false;
  }
  error_.clear();
  return true;
}

// Polls its HTTP port until it answers (bounded: 60 s), or it exits.
bool ClickHouseServer::wait_ready() {
  bool exited = false, ready = false;
  sonde::test::wait_until([&] {
    int status = 0;
    exited = ::waitpid(pid_, &status, WNOHANG) == pid_;
    ready = !exited && query("SELECT 1") == "1\n";
    return exited || ready;
  });
  if (exited) pid_ = -1;
  return ready;
}

void ClickHouseServer::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

std::string ClickHouseServer::query(const std::string& sql) const {
  try {
    auto r = fleet::http_post("127.0.0.1", http_port_, "/", sql, std::chrono::seconds(30));
    return r.status == 200 ? r.body : "ERROR " + r.body;
  } catch (const sonde::Error& e) {
    return std::string("ERROR ") + e.what();
  }
}

}  // namespace sonde::test
