#include "top/top.h"

#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

#include "top/keys.h"
#include "top/live_session.h"
#include "top/signal_watch.h"
#include "top/terminal.h"
#include "util/error.h"

namespace sonde::top {

namespace {

using Clock = std::chrono::steady_clock;

// The poll loop: refreshes every delay, keys (interactive), signals and the
// end of the recording. Returns the exit status.
class TopLoop {
 public:
  TopLoop(const TopOptions& o, LiveSession& session, SignalWatch& signals, RawTerminal* term)
      : o_(o), session_(session), signals_(signals), term_(term), view_(o.view) {}

  int run() {
    const auto delay = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o_.view.delay_seconds));
    auto next = Clock::now() + delay;
    pollfd pfds[3] = {{signals_.fd(), POLLIN, 0}, {session_.ended_fd(), POLLIN, 0}, {term_ ? STDIN_FILENO : -1, POLLIN, 0}};
    draw();
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count();
      int n = ::poll(pfds, 3, static_cast<int>(std::max<long long>(0, left + 1)));
      if (n < 0 && errno != EINTR) throw_runtime("poll failed: {}", errno_text(errno));
      if (n > 0 && (pfds[0].revents & POLLIN)) {
        if (int status = take_signals(); status >= 0) return status;
      }
      if (n > 0 && pfds[2].revents) {
        if (pfds[2].revents & (POLLHUP | POLLERR)) return 128 + SIGHUP;  // the terminal went away
        if (!read_keys()) return 0;
      }
      const bool ended = n > 0 && (pfds[1].revents & POLLIN);
      if (ended) pfds[1].fd = -1;  // shown once below; the screen stays until q
      if (Clock::now() < next && !ended) continue;
      refresh();
      if (o_.iterations && ++refreshes_ >= o_.iterations) return 0;
      if (ended && !term_) return 0;
      next = std::max(next + delay, Clock::now());
    }
  }

 private:
  // -1 to go on, else the exit status.
  int take_signals() {
    while (int sig = signals_.take()) {
      if (sig == SIGWINCH) draw();
      else return sig == SIGINT ? 0 : 128 + sig;
    }
    return -1;
  }

  // False when a key quits.
  bool read_keys() {
    char buf[256];
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n <= 0) return n < 0 && (errno == EINTR || errno == EAGAIN);
    keys_.clear();
    decode_keys(std::string_view(buf, static_cast<size_t>(n)), keys_);
    for (const KeyPress& k : keys_)
      if (!view_.on_key(k)) return false;
    draw();
    return true;
  }

  void refresh() {
    Interval interval;
    session_.take_interval(interval);
    view_.update(std::move(interval));
    if (term_) return draw();
    std::string text = view_.stdio_text();
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
      throw_runtime("cannot write to standard output: {}", errno_text(errno));
  }

  void draw() {
    if (!term_) return;
    size_t rows, cols;
    term_->size(rows, cols);
    term_->draw(view_.screen(rows, cols), cols);
  }

  const TopOptions& o_;
  LiveSession& session_;
  SignalWatch& signals_;
  RawTerminal* term_;
  TopView view_;
  std::vector<KeyPress> keys_;
  uint64_t refreshes_ = 0;
};

}  // namespace

int run_top(TopOptions options) {
  if (!(options.view.delay_seconds > 0) || !std::isfinite(options.view.delay_seconds))
    throw_usage("invalid -d {}: the delay must be a positive number of seconds", options.view.delay_seconds);
  const bool interactive = !options.stdio && ::isatty(STDIN_FILENO) && ::isatty(STDOUT_FILENO);
  SignalWatch signals;  // before the session: its threads inherit the blocked signals
  analysis::ProfileOptions profile;
  profile.split_by_cpu = false;  // the table has no cpu key
  profile.callchains = options.record.callchain;
  LiveSession session(std::move(options.record), options.symbols, profile);
  int status;
  {
    std::optional<RawTerminal> term;
    if (interactive) term.emplace(STDIN_FILENO, STDOUT_FILENO);
    TopLoop loop(options, session, signals, term ? &*term : nullptr);
    status = loop.run();
  }
  session.stop();  // the events closed; a recorder or reader failure is thrown here
  return status;
}

}  // namespace sonde::top
