#include "fleet/http_client.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.h"

namespace sonde::fleet {

namespace {

template <typename... Args>
[[noreturn]] void unavailable(fmt::format_string<Args...> f, Args&&... args) {
  throw StoreUnavailable(fmt::format(f, std::forward<Args>(args)...));
}

struct Socket {
  int fd = -1;
  ~Socket() {
    if (fd >= 0) ::close(fd);
  }
};

// Connects with the timeout (SO_SNDTIMEO bounds connect() on Linux too).
void connect_to(Socket& s, const std::string& host, uint16_t port, std::chrono::milliseconds timeout) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &res); rc != 0)
    unavailable("store {}:{}: cannot resolve the host: {}", host, port, gai_strerror(rc));
  timeval tv{};
  tv.tv_sec = timeout.count() / 1000;
  tv.tv_usec = (timeout.count() % 1000) * 1000;
  int err = 0;
  for (addrinfo* a = res; a; a = a->ai_next) {
    s.fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (s.fd < 0) continue;
    ::setsockopt(s.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    ::setsockopt(s.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (::connect(s.fd, a->ai_addr, a->ai_addrlen) == 0) break;
    err = errno;
    ::close(s.fd);
    s.fd = -1;
  }
  ::freeaddrinfo(res);
  if (s.fd < 0) unavailable("store {}:{} is unreachable: {}", host, port, std::strerror(err));
}

void send_all(int fd, const std::string& data, const std::string& where) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) unavailable("store {}: timed out sending", where);
    if (n < 0) unavailable("store {}: send failed: {}", where, std::strerror(errno));
    off += size_t(n);
  }
}

std::string receive_all(int fd, const std::string& where) {
  std::string in;
  char buf[65536];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) unavailable("store {}: timed out waiting for the answer", where);
    if (n < 0) unavailable("store {}: receive failed: {}", where, std::strerror(errno));
    if (n == 0) return in;
    in.append(buf, size_t(n));
  }
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

HttpResponse parse_http_response(const std::string& raw, const std::string& where) {
  HttpResponse r;
  const size_t head_end = raw.find("\r\n\r\n");
  if (!raw.starts_with("HTTP/1.") || head_end == std::string::npos || raw.size() < 12)
    throw_runtime("store {}: the answer is not HTTP", where);
  r.status = std::atoi(raw.c_str() + 9);
  const std::string head = lower(raw.substr(0, head_end));
  std::string body = raw.substr(head_end + 4);
  if (head.find("\r\ntransfer-encoding: chunked") != std::string::npos) {
    r.body = decode_chunked(body);
  } else if (size_t cl = head.find("\r\ncontent-length:"); cl != std::string::npos) {
    const uint64_t want = std::strtoull(head.c_str() + cl + 17, nullptr, 10);
    if (want > body.size()) throw_runtime("store {}: the answer was cut short", where);
    r.body = body.substr(0, want);
  } else {
    r.body = std::move(body);
  }
  return r;
}

std::string decode_chunked(const std::string& raw) {
  std::string out;
  size_t pos = 0;
  for (;;) {
    const size_t eol = raw.find("\r\n", pos);
    if (eol == std::string::npos) throw_runtime("store: a chunked answer was cut short");
    char* end = nullptr;
    const unsigned long long size = std::strtoull(raw.c_str() + pos, &end, 16);
    if (end == raw.c_str() + pos) throw_runtime("store: a malformed chunk in the answer");
    if (size == 0) return out;
    if (size > raw.size() - (eol + 2) || raw.size() - (eol + 2) - size < 2)
      throw_runtime("store: a chunked answer was cut short");
    out.append(raw, eol + 2, size);
    pos = eol + 2 + size + 2;
  }
}

std::string url_encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += char(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

HttpResponse http_post(const std::string& host, uint16_t port, const std::string& target, const std::string& body,
                       std::chrono::milliseconds timeout) {
  const std::string where = host + ":" + std::to_string(port);
  Socket s;
  connect_to(s, host, port, timeout);
  std::string req = "POST " + target + " HTTP/1.1\r\nHost: " + where +
                    "\r\nConnection: close\r\nContent-Type: application/octet-stream\r\nContent-Length: " +
                    std::to_string(body.size()) + "\r\n\r\n";
  send_all(s.fd, req, where);
  send_all(s.fd, body, where);
  const std::string answer = receive_all(s.fd, where);
  // A store that stops (or restarts) while a request is under way closes
  // the connection without an answer: down, not a rejection.
  if (answer.empty()) unavailable("store {}: closed the connection without answering", where);
  return parse_http_response(answer, where);
}

}  // namespace sonde::fleet
