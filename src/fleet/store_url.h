// clickhouse://HOST:PORT/DB?key=value&... : where a fleet's profiles live,
// and (for readers) which of them to read.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace sonde::fleet {

inline constexpr const char* kStoreScheme = "clickhouse://";

struct StoreUrl {
  std::string host;
  uint16_t port = 8123;
  std::string database;
  std::map<std::string, std::string> params;  // decoded query parameters
};

// True when an input names the store rather than a file.
bool is_store_url(const std::string& text);
// Throws a usage error naming what is wrong (no database, bad port...).
StoreUrl parse_store_url(const std::string& text);

}  // namespace sonde::fleet
