#include "fleet/clickhouse.h"

#include "fleet/http_client.h"
#include "util/error.h"

namespace sonde::fleet {

std::string ClickHouse::execute(const std::string& sql, const std::string& data) const {
  // With data, the statement goes in the URL and the rows in the body;
  // without, the statement is the body (no URL length limit).
  // Statements name their tables with the database (it may not exist yet).
  std::string target = "/";
  std::string body = data;
  if (data.empty()) body = sql;
  else target += "?query=" + url_encode(sql);
  HttpResponse r = http_post(url_.host, url_.port, target, body, timeout_);
  if (r.status != 200) {
    std::string first = r.body.substr(0, r.body.find('\n'));
    if (first.size() > 300) first = first.substr(0, 300) + "...";
    throw_runtime("store {}:{} rejected the request (HTTP {}): {}", url_.host, url_.port, r.status, first);
  }
  return r.body;
}

std::vector<std::vector<std::string>> ClickHouse::rows(const std::string& sql) const {
  return parse_tsv(execute(sql + " FORMAT TabSeparated"));
}

std::string ClickHouse::quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out + "'";
}

std::vector<std::vector<std::string>> parse_tsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row(1);
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\t') {
      row.emplace_back();
    } else if (c == '\n') {
      rows.push_back(std::move(row));
      row.assign(1, std::string());
    } else if (c == '\\' && i + 1 < text.size()) {
      const char e = text[++i];
      switch (e) {
        case 't': row.back() += '\t'; break;
        case 'n': row.back() += '\n'; break;
        case 'r': row.back() += '\r'; break;
        case '0': row.back() += '\0'; break;
        case 'b': row.back() += '\b'; break;
        case 'f': row.back() += '\f'; break;
        case 'a': row.back() += '\a'; break;
        case 'v': row.back() += '\v'; break;
        case 'e': row.back() += '\x1b'; break;
        default: row.back() += e; break;
      }
    } else {
      row.back() += c;
    }
  }
  if (row.size() > 1 || !row[0].empty()) rows.push_back(std::move(row));
  return rows;
}

}  // namespace sonde::fleet
