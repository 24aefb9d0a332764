// sonde's one error type. Library code throws sonde::Error; the CLI catches it
// at the top, prints one line and exits with the code its kind asks for.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace sonde {

enum class ErrorKind {
  Usage,    // the user asked for something malformed: exit code 2
  Runtime,  // the request was fine but could not be carried out: exit code 1
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message)
      : std::runtime_error(std::move(message)), kind_(kind) {}
  ErrorKind kind() const { return kind_; }
  int exit_code() const { return kind_ == ErrorKind::Usage ? 2 : 1; }

 private:
  ErrorKind kind_;
};

template <typename... Args>
[[noreturn]] void throw_usage(fmt::format_string<Args...> f, Args&&... args) {
  throw Error(ErrorKind::Usage, fmt::format(f, std::forward<Args>(args)...));
}

template <typename... Args>
[[noreturn]] void throw_runtime(fmt::format_string<Args...> f, Args&&... args) {
  throw Error(ErrorKind::Runtime, fmt::format(f, std::forward<Args>(args)...));
}

// "what: strerror(errno)" for a failed system call; errno is read on call.
std::string errno_text(int err);

}  // namespace sonde
