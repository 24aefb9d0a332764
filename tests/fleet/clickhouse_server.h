// A real clickhouse-server for a test: on 127.0.0.1, free ports, its data
// and config in a scratch folder, stopped by PID when the object goes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace sonde::test {

class ClickHouseServer {
 public:
  // Starts it under `dir`; on failure, error() says why (empty on success).
  explicit ClickHouseServer(const std::string& dir);
  ~ClickHouseServer();
  ClickHouseServer(const ClickHouseServer&) = delete;
  ClickHouseServer& operator=(const ClickHouseServer&) = delete;

  bool running() const { return pid_ > 0 && error_.empty(); }
  const std::string& error() const { return error_; }
  uint16_t port() const { return http_port_; }
  std::string url(const std::string& db) const { return "clickhouse://127.0.0.1:" + std::to_string(http_port_) + "/" + db; }
  // Stops it (SIGTERM, then waits) / starts it again on the same ports and data.
  void stop();
  bool start();
  // Runs a query; the answer, or "ERROR ..." when it fails.
  std::string query(const std::string& sql) const;

 private:
  bool wait_ready();
  std::string dir_, error_;
  uint16_t http_port_ = 0, tcp_port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace sonde::test
