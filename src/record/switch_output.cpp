#include "record/switch_output.h"

#include <sys/time.h>

#include <cerrno>
#include <cstdio>
#include <ctime>

#include "util/error.h"
#include "util/parse_int.h"

namespace sonde::record {

namespace {

struct Unit {
  char tag;
  uint64_t seconds;
};

// perf's tags (parse_tag_value): sizes upper case (parse_byte_size), times
// lower case, so "1M" is a mebibyte and "1m" a minute.
constexpr Unit kUnits[] = {
    {'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400},
};
bool is_size_tag(char c) { return c == 'B' || c == 'K' || c == 'M' || c == 'G'; }

}  // namespace

SwitchOutput parse_switch_output(std::string_view text) {
  SwitchOutput s;
  s.enabled = true;
  if (text == "signal") return s;
  if (text.size() >= 2 && is_size_tag(text.back())) {
    if (auto bytes = parse_byte_size(text, 1, UINT64_MAX)) {
      s.size_bytes = *bytes;
      return s;
    }
  } else if (text.size() >= 2) {
    for (const Unit& u : kUnits) {
      if (text.back() != u.tag) continue;
      auto n = parse_uint<uint64_t>(text.substr(0, text.size() - 1), 1, UINT64_MAX / u.seconds);
      if (!n) break;
      s.seconds = n.value * u.seconds;
      return s;
    }
  }
  throw_usage("invalid --switch-output '{}': expected signal, a size (100M: B, K, M, G) or a time (30s: s, m, h, d)",
              text);
}

std::string RotatedFiles::next_timestamp() {
  timeval tv{};
  ::gettimeofday(&tv, nullptr);
  int64_t centis = static_cast<int64_t>(tv.tv_sec) * 100 + tv.tv_usec / 10000;
  if (centis <= last_centis_) centis = last_centis_ + 1;
  last_centis_ = centis;
  time_t secs = static_cast<time_t>(centis / 100);
  tm t{};
  ::localtime_r(&secs, &t);
  char date[32];
  std::strftime(date, sizeof date, "%Y%m%d%H%M%S", &t);
  char out[40];
  std::snprintf(out, sizeof out, "%s%02u", date, static_cast<unsigned>(centis % 100));
  return out;
}

std::string RotatedFiles::retire_current() {
  std::string name = output_ + "." + next_timestamp();
  if (std::rename(output_.c_str(), name.c_str()) != 0)
    throw_runtime("cannot rename '{}' to '{}': {}", output_, name, errno_text(errno));
  ++retired_;
  kept_.push_back(name);
  if (max_files_ > 0 && kept_.size() > max_files_) {
    // Already gone (removed by hand) is what was wanted.
    if (std::remove(kept_.front().c_str()) != 0 && errno != ENOENT)
      throw_runtime("cannot remove '{}': {}", kept_.front(), errno_text(errno));
    kept_.pop_front();
  }
  return name;
}

}  // namespace sonde::record
