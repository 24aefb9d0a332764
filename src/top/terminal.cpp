#include "top/terminal.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "util/error.h"
#include "util/fd.h"

namespace sonde::top {

namespace {

// Alternate screen and hidden cursor on; their reverse.
constexpr char kEnter[] = "\x1b[?1049h\x1b[?25l";
constexpr char kLeave[] = "\x1b[0m\x1b[?25h\x1b[?1049l";

// What a crash handler needs, set while a RawTerminal exists: only
// async-signal-safe calls (tcsetattr, write) use it.
termios g_saved;
int g_in = -1, g_out = -1;
volatile sig_atomic_t g_active = 0;

void restore_terminal() {
  if (!g_active) return;
  g_active = 0;
  ::tcsetattr(g_in, TCSANOW, &g_saved);
  [[maybe_unused]] ssize_t n = ::write(g_out, kLeave, sizeof kLeave - 1);
}

}  // namespace

RawTerminal::RawTerminal(int in_fd, int out_fd) : in_(in_fd), out_(out_fd) {
  if (::tcgetattr(in_, &g_saved) != 0) throw_runtime("standard input is not a terminal (use --stdio)");
  termios raw = g_saved;
  raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO | ISIG | IEXTEN);
  raw.c_iflag &= ~static_cast<tcflag_t>(IXON | ICRNL | BRKINT | INPCK | ISTRIP);
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;
  if (::tcsetattr(in_, TCSANOW, &raw) != 0) throw_runtime("cannot set the terminal's mode: {}", errno_text(errno));
  g_in = in_, g_out = out_;
  g_active = 1;
  crash_.emplace(restore_terminal);  // a crash leaves the terminal usable
  write_all(out_, kEnter, sizeof kEnter - 1);
}

RawTerminal::~RawTerminal() {
  restore_terminal();
  crash_.reset();
}

void RawTerminal::size(size_t& rows, size_t& cols) const {
  winsize ws{};
  if (::ioctl(out_, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
    rows = ws.ws_row, cols = ws.ws_col;
  } else {
    rows = 24, cols = 80;
  }
}

void RawTerminal::draw(const Screen& screen, size_t cols) {
  std::string out = "\x1b[H";
  for (size_t i = 0; i < screen.lines.size(); ++i) {
    if (i) out += "\r\n";
    const std::string& line = screen.lines[i];
    if (static_cast<int>(i) == screen.highlight) {
      out += "\x1b[7m" + line + std::string(cols > line.size() ? cols - line.size() : 0, ' ') + "\x1b[0m";
    } else {
      out += line + "\x1b[K";
    }
  }
  out += "\x1b[J";
  write_all(out_, out.data(), out.size());
}

}  // namespace sonde::top
