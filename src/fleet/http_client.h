// A minimal HTTP/1.1 client over a TCP socket: one POST per connection
// (Connection: close), Content-Length bodies out, Content-Length, chunked or
// close-delimited bodies in. Enough for ClickHouse's HTTP interface without
// a new dependency (docs/architecture.md says why not libcurl).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "util/error.h"

namespace sonde::fleet {

// The store cannot be reached or did not answer in time: worth retrying
// (unlike an answer that rejects the request).
class StoreUnavailable : public Error {
 public:
  explicit StoreUnavailable(std::string message) : Error(ErrorKind::Runtime, std::move(message)) {}
};

struct HttpResponse {
  int status = 0;
  std::string body;
};

// POSTs `body` to http://host:port<target>. Throws sonde::Error (runtime)
// with one line when the server cannot be reached, times out, or answers
// something that is not HTTP; an HTTP error status is returned, not thrown.
HttpResponse http_post(const std::string& host, uint16_t port, const std::string& target, const std::string& body,
                       std::chrono::milliseconds timeout);

// An HTTP/1.x answer (status line, headers, a Content-Length, chunked or
// close-delimited body) from `where`; throws a runtime error for one that
// is not HTTP or is cut short.
HttpResponse parse_http_response(const std::string& raw, const std::string& where);

// Decodes a chunked transfer-encoded body; throws on a malformed one.
std::string decode_chunked(const std::string& raw);

// Percent-encodes a query-string value.
std::string url_encode(const std::string& s);

}  // namespace sonde::fleet
