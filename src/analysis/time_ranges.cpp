#include "analysis/time_ranges.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "util/error.h"
#include "util/parse_int.h"

namespace sonde::analysis {

bool TimeRanges::contains(uint64_t time) const {
  if (ranges_.empty() || time == 0) return true;
  for (const TimeRange& r : ranges_)
    if ((r.start == 0 || time >= r.start) && (r.end == 0 || time <= r.end)) return true;
  return false;
}

namespace {

[[noreturn]] void bad(std::string_view whole, std::string_view why) { throw_usage("--time '{}': {}", whole, why); }

bool is_blank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// "SEC[.FRAC]" with at most 9 decimals, exactly (no floating point); "" is 0
// (an open end).
uint64_t parse_seconds(std::string_view text, std::string_view whole) {
  text = trim(text);
  if (text.empty()) return 0;
  size_t dot = text.find('.');
  std::string_view sec = text.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  constexpr uint64_t kMaxSeconds = UINT64_MAX / 1000000000ULL - 1;
  auto s = parse_uint<uint64_t>(sec, 0, kMaxSeconds);
  bool sec_ok = s || (sec.empty() && dot != std::string_view::npos);
  auto f = parse_uint<uint64_t>(frac);
  bool frac_ok = frac.empty() || (f && frac.size() <= 9);
  if (!sec_ok || !frac_ok || (sec.empty() && frac.empty()))
    bad(whole, fmt::format("'{}' is not a time in seconds (SEC[.NSEC], at most 9 decimals)", text));
  uint64_t ns = (sec.empty() ? 0 : s.value) * 1000000000ULL;
  if (!frac.empty()) {
    uint64_t scale = 1;
    for (size_t i = frac.size(); i < 9; ++i) scale *= 10;
    ns += f.value * scale;
  }
  return ns;
}

TimeRange parse_range(std::string_view piece, std::string_view whole) {
  size_t comma = piece.find(',');
  TimeRange r{parse_seconds(piece.substr(0, comma), whole), parse_seconds(piece.substr(comma + 1), whole)};
  if (r.end && r.end < r.start) bad(whole, fmt::format("STOP is before START in '{}'", trim(piece)));
  return r;
}

// perf's absolute form: one comma per range; ranges separated by blanks (a
// blank may follow a range's comma).
std::vector<TimeRange> parse_absolute(std::string_view text) {
  std::vector<TimeRange> out;
  std::string_view rest = text;
  while (!trim(rest).empty()) {
    rest = rest.substr(rest.find_first_not_of(" \t\n\r\f\v"));
    size_t comma = rest.find(',');
    if (comma == std::string_view::npos)
      bad(text, "expected START,STOP in seconds (either may be empty), or percentages (10%/2, 0%-10%, 25%)");
    size_t end = comma + 1;
    while (end < rest.size() && is_blank(rest[end])) ++end;
    while (end < rest.size() && !is_blank(rest[end])) {
      if (rest[end] == ',') bad(text, "separate several ranges with blanks: 'A,B C,D'");
      ++end;
    }
    out.push_back(parse_range(rest.substr(0, end), text));
    rest.remove_prefix(end);
  }
  if (out.empty()) bad(text, "expected START,STOP in seconds (either may be empty)");
  // As perf: in order, without overlap (an open end counts as 0).
  for (size_t i = 0; i + 1 < out.size(); ++i)
    if (out[i].end >= out[i + 1].start) bad(text, "ranges must be in order and must not overlap");
  return out;
}

// "P%" -> P/100; the text must be exactly a number and '%'.
double parse_percent(std::string_view p, std::string_view whole) {
  p = trim(p);
  if (p.size() < 2 || p.back() != '%') bad(whole, fmt::format("'{}' is not a percentage", p));
  std::string num(p.substr(0, p.size() - 1));
  char* end = nullptr;
  double d = std::strtod(num.c_str(), &end);
  if (num.empty() || end != num.c_str() + num.size() || !std::isfinite(d))
    bad(whole, fmt::format("'{}' is not a percentage", p));
  return d / 100.0;
}

std::vector<std::string_view> split_commas(std::string_view text) {
  std::vector<std::string_view> out;
  size_t at = 0;
  while (true) {
    size_t comma = text.find(',', at);
    out.push_back(text.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at));
    if (comma == std::string_view::npos) return out;
    at = comma + 1;
  }
}

}  // namespace

TimeSpec TimeSpec::parse(std::string_view text) {
  TimeSpec spec;
  spec.text_ = std::string(text);
  if (trim(text).empty()) bad(text, "expected START,STOP in seconds, or percentages (10%/2, 0%-10%, 25%)");
  if (text.find('%') == std::string_view::npos) {
    spec.absolute_ = parse_absolute(text);
    return spec;
  }
  spec.percent_ = true;
  auto add = [&](double from, double to) {
    if (from < 0 || from > 1 || to < 0 || to > 1) bad(text, "percentages must be within 0%..100%");
    spec.slices_.push_back({from, to});
  };
  if (text.find('/') != std::string_view::npos) {
    for (std::string_view piece : split_commas(text)) {  // P%/N: the Nth slice of P%
      size_t slash = piece.find('/');
      if (slash == std::string_view::npos) bad(text, fmt::format("'{}' is not a slice (P%/N)", piece));
      double p = parse_percent(piece.substr(0, slash), text);
      auto n = parse_int<int>(trim(piece.substr(slash + 1)));
      if (!n) bad(text, fmt::format("'{}' is not a slice (P%/N, N a whole number)", piece));
      if (p <= 0) bad(text, fmt::format("'{}': the slice must be larger than 0%", piece));
      add(p * (n.value - 1), p * n.value);
    }
  } else if (text.find('-') != std::string_view::npos) {
    for (std::string_view piece : split_commas(text)) {  // A%-B%
      size_t dash = piece.find('-');
      if (dash == std::string_view::npos) bad(text, fmt::format("'{}' is not a range of percentages (A%-B%)", piece));
      add(parse_percent(piece.substr(0, dash), text), parse_percent(piece.substr(dash + 1), text));
    }
  } else {
    add(0, parse_percent(text, text));  // P%: the first P%
  }
  return spec;
}

TimeRanges TimeSpec::resolve(uint64_t first, uint64_t last) const {
  if (!percent_) return TimeRanges(absolute_);
  std::vector<TimeRange> out;
  const uint64_t span = last > first ? last - first : 0;
  for (const Slice& s : slices_) {
    TimeRange r{first + static_cast<uint64_t>(std::llround(s.from * double(span))),
                first + static_cast<uint64_t>(std::llround(s.to * double(span)))};
    if (r.end > r.start && r.end != last) r.end -= 1;  // slices meet without sharing a nanosecond
    out.push_back(r);
  }
  return TimeRanges(std::move(out));
}

}  // namespace sonde::analysis
