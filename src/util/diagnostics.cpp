#include "util/diagnostics.h"

#include <atomic>
#include <cstdio>
#include <mutex>

namespace sonde {

namespace {

struct State {
  std::mutex mu;  // prefix and sink: set by the CLI before threads start, read by any thread
  std::string prefix = "sonde";
  DiagnosticSink sink;
  std::atomic<bool> quiet{false};
};

State& state() {
  static State s;
  return s;
}

void emit(std::string_view line) {
  State& s = state();
  std::lock_guard lock(s.mu);
  if (s.sink) return s.sink(line);
  std::string whole(line);
  whole += '\n';
  std::fputs(whole.c_str(), stderr);
}

void say(std::string_view middle, std::string_view text) {
  State& s = state();
  if (s.quiet.load(std::memory_order_relaxed)) return;
  std::string line;
  {
    std::lock_guard lock(s.mu);
    line = s.prefix;
  }
  line += ": ";
  line += middle;
  line += text;
  emit(line);
}

}  // namespace

void set_diagnostics_prefix(std::string prefix) {
  std::lock_guard lock(state().mu);
  state().prefix = std::move(prefix);
}

void set_diagnostics_quiet(bool quiet) { state().quiet.store(quiet, std::memory_order_relaxed); }

bool diagnostics_quiet() { return state().quiet.load(std::memory_order_relaxed); }

DiagnosticSink set_diagnostic_sink(DiagnosticSink sink) {
  std::lock_guard lock(state().mu);
  std::swap(state().sink, sink);
  return sink;
}

void warn(std::string_view text) { say("warning: ", text); }
void note(std::string_view text) { say("", text); }

void asked(std::string_view text) {
  std::string line;
  {
    std::lock_guard lock(state().mu);
    line = state().prefix;
  }
  line += ": ";
  line += text;
  emit(line);
}

void fatal_line(std::string_view text) {
  std::string line = "sonde: ";
  line += text;
  emit(line);
}

}  // namespace sonde
