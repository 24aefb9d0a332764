// ClickHouse over its HTTP interface: statements in the `query` parameter,
// data (RowBinary) in the body, answers as TabSeparated text.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "fleet/store_url.h"

namespace sonde::fleet {

class ClickHouse {
 public:
  explicit ClickHouse(StoreUrl url, std::chrono::milliseconds timeout = std::chrono::seconds(30))
      : url_(std::move(url)), timeout_(timeout) {}

  // Runs one statement; `data` is the body (INSERT's rows). Returns the
  // answer; throws a runtime error with ClickHouse's first line on failure.
  std::string execute(const std::string& sql, const std::string& data = "") const;
  // A TabSeparated answer as rows of unescaped fields.
  std::vector<std::vector<std::string>> rows(const std::string& sql) const;
  const StoreUrl& url() const { return url_; }
  // 'text' as a ClickHouse string literal.
  static std::string quote(const std::string& text);

 private:
  StoreUrl url_;
  std::chrono::milliseconds timeout_;
};

// Splits a TabSeparated answer into rows of unescaped fields.
std::vector<std::vector<std::string>> parse_tsv(const std::string& text);

}  // namespace sonde::fleet
