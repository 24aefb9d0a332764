// The terminal for `sonde top`'s interactive screen, with plain ANSI escape
// codes and termios: raw mode (no echo, no line editing, keys as bytes,
// Ctrl-C included), the alternate screen, no cursor. The destructor puts it
// back as it was; so does a handler for the signals that end a process
// abnormally (SIGSEGV, SIGABRT, ...), which then re-raises them. SIGINT,
// SIGTERM and SIGHUP are the caller's (top.cpp reads them from a signalfd
// and returns, so this destructor runs).
#pragma once

#include <termios.h>

#include <cstddef>
#include <optional>

#include "kernel/fatal_signals.h"
#include "top/top_view.h"

namespace sonde::top {

class RawTerminal {
 public:
  // Throws sonde::Error (runtime) when `in_fd` is not a terminal.
  RawTerminal(int in_fd, int out_fd);
  ~RawTerminal();
  RawTerminal(const RawTerminal&) = delete;
  RawTerminal& operator=(const RawTerminal&) = delete;

  // The window's size (24 x 80 when the terminal does not say).
  void size(size_t& rows, size_t& cols) const;
  // Redraws the whole screen; the highlighted line in reverse video.
  void draw(const Screen& screen, size_t cols);

 private:
  int in_, out_;
  std::optional<kernel::CrashHook> crash_;
};

}  // namespace sonde::top
