#include "fleet/store_url.h"

#include <cctype>

#include "util/error.h"

namespace sonde::fleet {

namespace {

std::string percent_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() + 0 && std::isxdigit((unsigned char)s[i + 1]) && std::isxdigit((unsigned char)s[i + 2])) {
      out += char(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i] == '+' ? ' ' : s[i];
    }
  }
  return out;
}

bool valid_name(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum((unsigned char)c) && c != '_') return false;
  return true;
}

}  // namespace

bool is_store_url(const std::string& text) { return text.starts_with(kStoreScheme); }

StoreUrl parse_store_url(const std::string& text) {
  if (!is_store_url(text)) throw_usage("'{}': a store is clickhouse://HOST:PORT/DB", text);
  std::string rest = text.substr(std::string(kStoreScheme).size());
  std::string query;
  if (size_t q = rest.find('?'); q != std::string::npos) query = rest.substr(q + 1), rest.resize(q);
  const size_t slash = rest.find('/');
  StoreUrl u;
  std::string authority = rest.substr(0, slash);
  if (slash == std::string::npos || slash + 1 >= rest.size())
    throw_usage("'{}': no database (clickhouse://HOST:PORT/DB)", text);
  u.database = rest.substr(slash + 1);
  if (!valid_name(u.database)) throw_usage("'{}': database '{}' is not a name (letters, digits, _)", text, u.database);
  // An IPv6 address goes in brackets: clickhouse://[::1]:8123/DB.
  std::string bracketed;
  if (authority.starts_with('[')) {
    const size_t close = authority.find(']');
    if (close == std::string::npos || close == 1) throw_usage("'{}': a bracketed host is [IPv6 address]", text);
    bracketed = authority.substr(1, close - 1);
    authority.erase(0, close + 1);
    if (!authority.empty() && authority[0] != ':') throw_usage("'{}': ':PORT' must follow the bracketed host", text);
  }
  if (size_t colon = authority.rfind(':'); colon != std::string::npos) {
    const std::string port = authority.substr(colon + 1);
    char* end = nullptr;
    const unsigned long v = std::strtoul(port.c_str(), &end, 10);
    if (port.empty() || *end || v == 0 || v > 65535) throw_usage("'{}': port '{}' is not 1..65535", text, port);
    u.port = uint16_t(v);
    authority.resize(colon);
  }
  if (!bracketed.empty()) authority = bracketed;
  if (authority.empty()) throw_usage("'{}': no host (clickhouse://HOST:PORT/DB)", text);
  u.host = authority;
  size_t pos = 0;
  while (pos < query.size()) {
    size_t amp = query.find('&', pos);
    if (amp == std::string::npos) amp = query.size();
    const std::string pair = query.substr(pos, amp - pos);
    const size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) throw_usage("'{}': query parameter '{}' is not KEY=VALUE", text, pair);
    u.params[percent_decode(pair.substr(0, eq))] = percent_decode(pair.substr(eq + 1));
    pos = amp + 1;
  }
  return u;
}

}  // namespace sonde::fleet
