// sonde's one integer parser: the whole text must be a number of type T
// within [min, max], or the result says why not. Callers keep their own
// messages (the CLI's error texts are part of its interface) and use
// `reason()` where none exists yet.
#pragma once

#include <fmt/format.h>

#include <charconv>
#include <concepts>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace sonde {

enum class IntSyntax {
  Decimal,  // "123" (a '-' only for signed types)
  Hex,      // "7f3a00" (addresses in /proc/PID/maps)
  HexOr0x,  // "7f3a00" or "0x7f3a00" / "0X7F3A00" (kallsyms, user input)
};

enum class IntError {
  None,
  Empty,       // no digits at all
  NotANumber,  // other characters, a sign, blanks
  BelowMin,    // a number, but smaller than min (or than T can hold)
  AboveMax,    // a number, but larger than max (or than T can hold)
};

template <std::integral T>
struct ParsedInt {
  T value{};
  IntError error = IntError::None;
  T min{}, max{};

  explicit operator bool() const { return error == IntError::None; }

  // "is empty", "is not a number", "is below 1", "is above 4095".
  std::string reason() const {
    switch (error) {
      case IntError::None: return "is valid";
      case IntError::Empty: return "is empty";
      case IntError::NotANumber: return "is not a number";
      case IntError::BelowMin: return fmt::format("is below {}", min);
      case IntError::AboveMax: return fmt::format("is above {}", max);
    }
    return "is not a number";
  }
};

namespace detail {

template <std::integral T>
ParsedInt<T> parse_integer(std::string_view text, T min, T max, IntSyntax syntax) {
  ParsedInt<T> r;
  r.min = min;
  r.max = max;
  int base = syntax == IntSyntax::Decimal ? 10 : 16;
  if (syntax == IntSyntax::HexOr0x && text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    text.remove_prefix(2);
  if (text.empty()) {
    r.error = IntError::Empty;
    return r;
  }
  // from_chars takes a '-' for signed types only in decimal; never a '+'.
  if (text[0] == '-' && (base != 10 || std::is_unsigned_v<T>)) {
    r.error = IntError::NotANumber;
    return r;
  }
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), r.value, base);
  if (ec == std::errc::result_out_of_range && p == text.data() + text.size()) {
    r.error = text[0] == '-' ? IntError::BelowMin : IntError::AboveMax;
  } else if (ec != std::errc() || p != text.data() + text.size()) {
    r.error = IntError::NotANumber;
  } else if (r.value < min) {
    r.error = IntError::BelowMin;
  } else if (r.value > max) {
    r.error = IntError::AboveMax;
  }
  return r;
}

}  // namespace detail

// An unsigned number in [min, max]: parse_uint<uint64_t>("4096"),
// parse_uint<unsigned>(s, 1, 12), parse_uint<uint64_t>(s, 0, UINT64_MAX, IntSyntax::Hex).
template <std::unsigned_integral T>
ParsedInt<T> parse_uint(std::string_view text, std::type_identity_t<T> min = 0,
                        std::type_identity_t<T> max = std::numeric_limits<T>::max(),
                        IntSyntax syntax = IntSyntax::Decimal) {
  return detail::parse_integer<T>(text, min, max, syntax);
}

// The short form for fields of a line: the whole range of T, `out` set only
// when the text is valid. if (!parse_uint_into(field, addr, IntSyntax::Hex)) ...
template <std::unsigned_integral T>
bool parse_uint_into(std::string_view text, T& out, IntSyntax syntax = IntSyntax::Decimal) {
  auto r = detail::parse_integer<T>(text, 0, std::numeric_limits<T>::max(), syntax);
  if (r) out = r.value;
  return static_cast<bool>(r);
}

// A signed decimal number in [min, max]: parse_int<pid_t>(name, 1, INT_MAX).
template <std::signed_integral T>
ParsedInt<T> parse_int(std::string_view text, std::type_identity_t<T> min = std::numeric_limits<T>::lowest(),
                       std::type_identity_t<T> max = std::numeric_limits<T>::max()) {
  return detail::parse_integer<T>(text, min, max, IntSyntax::Decimal);
}

// A byte count with perf's optional binary tag (parse_tag_value's sizes):
// "4096", "512B", "16K", "100M", "2G" (1M = 2^20), within [min, max]
// bytes; nullopt when malformed or out of range.
inline std::optional<uint64_t> parse_byte_size(std::string_view text, uint64_t min, uint64_t max) {
  uint64_t factor = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'B': factor = 1; break;
      case 'K': factor = 1ULL << 10; break;
      case 'M': factor = 1ULL << 20; break;
      case 'G': factor = 1ULL << 30; break;
      default: factor = 0; break;
    }
    if (factor == 0) factor = 1;
    else text.remove_suffix(1);
  }
  auto n = parse_uint<uint64_t>(text, 0, std::numeric_limits<uint64_t>::max() / factor);
  if (!n || n.value * factor < min || n.value * factor > max) return std::nullopt;
  return n.value * factor;
}

}  // namespace sonde
