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
  uint64_t factor;
  bool is_time;
};

// perf's tags (parse_tag_value): sizes upper case, times lower case, so
// "1M" is a mebibyte and "1m" a minute.
constexpr Unit kUnits[] = {
    {'B', 1, false},      {'K', 1ULL << 10, false}, {'M', 1ULL << 20, false}, {'G', 1ULL << 30, false},
    {'s', 1, true},       {'m', 60, true},          {'h', 3600, true},        {'d', 86400, true},
};

}  // namespace

SwitchOutput parse_switch_output(std::string_view text) {
  SwitchOutput s;
  s.enabled = true;
  if (text == "signal") return s;
  if (text.size() >= 2) {
    for (const Unit& u : kUnits) {
      if (text.back() != u.tag) continue;
      auto n = parse_uint<uint64_t>(text.substr(0, text.size() - 1), 1, UINT64_MAX / u.factor);
      if (!n) break;
      (u.is_time ? s.seconds : s.size_bytes) = n.value * u.factor;
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
