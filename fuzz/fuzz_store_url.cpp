// A fleet store URL as a user types it (clickhouse://HOST:PORT/DB?k=v&...,
// the scheme added when the input lacks it), then its query parameters as
// the WHERE clause readers send to ClickHouse. What a URL holds must stay
// inside quoted literals: outside them the clause has only column names,
// operators and numbers, and every literal is closed.
#include <cstdlib>
#include <string>

#include "fleet/fleet_query.h"
#include "fleet/store_url.h"
#include "util/error.h"

namespace {

// The characters the clause's own text (outside literals) is made of:
// names, numbers, comparisons, calls. No quote, semicolon, comment or
// operator a value could smuggle in.
bool clause_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view(" ()=<>,[]_").find(c) != std::string_view::npos;
}

void check_quoting(const std::string& where) {
  bool in_literal = false;
  for (size_t i = 0; i < where.size(); ++i) {
    const char c = where[i];
    if (in_literal && c == '\\') ++i;  // an escaped character, even a quote
    else if (c == '\'') in_literal = !in_literal;
    else if (!in_literal && !clause_char(c)) std::abort();
  }
  if (in_literal) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  if (!sonde::fleet::is_store_url(text)) text = sonde::fleet::kStoreScheme + text;
  sonde::fleet::StoreUrl url;
  try {
    url = sonde::fleet::parse_store_url(text);
  } catch (const sonde::Error&) {
    return 0;
  }
  if (url.host.empty() || url.port == 0 || url.database.empty()) std::abort();
  try {
    check_quoting(sonde::fleet::where_clause(url, 1700000000));
  } catch (const sonde::Error&) {
  }
  return 0;
}
