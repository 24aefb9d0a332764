#include "format/tracepoint_format.h"

#include <fmt/format.h>

#include <cstring>

#include "format/probe_event_text.h"
#include "util/byte_reader.h"
#include "util/parse_int.h"

namespace sonde::format {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// "offset:8" out of a "\tfield:...;\toffset:8;\tsize:4;\tsigned:1;" line.
bool attr_value(std::string_view line, std::string_view key, uint32_t& out) {
  auto pos = line.find(key);
  if (pos == std::string_view::npos) return false;
  auto v = line.substr(pos + key.size());
  auto end = v.find(';');
  v = trim(v.substr(0, end));
  return parse_uint_into(v, out);
}

}  // namespace

bool parse_tracepoint_format(std::string_view text, const std::string& system, TracepointFormat& out) {
  out = TracepointFormat{};
  out.system = system;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    std::string_view t = trim(line);
    if (t.starts_with("name:")) {
      out.name = std::string(trim(t.substr(5)));
    } else if (t.starts_with("ID:")) {
      auto v = trim(t.substr(3));
      parse_uint_into(v, out.id);
    } else if (t.starts_with("print fmt:")) {
      out.print_fmt = std::string(trim(t.substr(10)));
    } else if (t.starts_with("field:")) {
      auto decl_end = t.find(';');
      if (decl_end == std::string_view::npos) continue;
      std::string_view decl = trim(t.substr(6, decl_end - 6));
      TracepointField f;
      uint32_t sign = 0;
      if (!attr_value(t, "offset:", f.offset) || !attr_value(t, "size:", f.size)) continue;
      attr_value(t, "signed:", sign);
      f.is_signed = sign != 0;
      f.type = std::string(decl);
      // The name is the last identifier: "char comm[16]" -> comm,
      // "__data_loc char[] filename" -> filename.
      std::string_view d = decl;
      if (d.ends_with(']')) d = trim(d.substr(0, d.rfind('[')));
      auto sp = d.find_last_of(" *]");
      f.name = std::string(sp == std::string_view::npos ? d : d.substr(sp + 1));
      const bool array = decl.find('[') != std::string_view::npos;
      f.is_data_loc = decl.starts_with("__data_loc");
      f.is_string = decl.find("char") != std::string_view::npos && array;
      if (f.name.starts_with("common_")) continue;
      out.fields.push_back(std::move(f));
    }
  }
  return !out.name.empty() && out.id != 0;
}

std::unordered_map<uint64_t, TracepointFormat> parse_tracing_data(std::span<const uint8_t> blob) {
  std::unordered_map<uint64_t, TracepointFormat> out;
  ByteReader r(blob);
  std::span<const uint8_t> magic;
  std::string_view version;
  uint8_t big_endian = 0, long_size = 0;
  uint32_t page_size = 0;
  if (!r.bytes(10, magic) || std::memcmp(magic.data(), "\x17\x08\x44tracing", 10) != 0) return out;
  if (!r.cstring(version) || !r.read(big_endian) || !r.read(long_size) || !r.read(page_size)) return out;
  auto skip_named = [&](std::string_view name) {
    uint64_t len = 0;
    std::string_view got;
    return r.cstring(got) && got == name && r.read(len) && r.skip(len);
  };
  if (!skip_named("header_page") || !skip_named("header_event")) return out;
  uint32_t nftrace = 0;
  if (!r.read(nftrace)) return out;
  for (uint32_t i = 0; i < nftrace; ++i) {
    uint64_t len = 0;
    if (!r.read(len) || !r.skip(len)) return out;
  }
  uint32_t nsys = 0;
  if (!r.read(nsys)) return out;
  for (uint32_t i = 0; i < nsys; ++i) {
    std::string_view sys;
    uint32_t count = 0;
    if (!r.cstring(sys) || !r.read(count)) return out;
    for (uint32_t j = 0; j < count; ++j) {
      uint64_t len = 0;
      std::span<const uint8_t> text;
      if (!r.read(len) || !r.bytes(len, text)) return out;
      TracepointFormat f;
      if (parse_tracepoint_format({reinterpret_cast<const char*>(text.data()), text.size()}, std::string(sys), f))
        out.emplace(f.id, std::move(f));
    }
  }
  return out;
}

std::optional<std::string_view> data_loc_string(const TracepointField& f, std::span<const uint8_t> raw) {
  // In 64 bits: a recorded offset near 4 GiB must not wrap past the check.
  if (static_cast<size_t>(f.offset) + 4 > raw.size()) return std::nullopt;
  uint32_t loc = load<uint32_t>(raw.data() + f.offset);
  uint32_t off = loc & 0xffff, len = loc >> 16;
  if (static_cast<size_t>(off) + len > raw.size()) return std::nullopt;
  const char* p = reinterpret_cast<const char*>(raw.data() + off);
  return std::string_view(p, strnlen(p, len));
}

std::string format_tracepoint_fields(const TracepointFormat& tf, std::span<const uint8_t> raw) {
  if (auto text = format_probe_event(tf, raw)) return std::move(*text);
  std::string out;
  for (const auto& f : tf.fields) {
    if (!out.empty()) out += ' ';
    out += f.name;
    out += '=';
    if (f.is_data_loc) {
      auto text = data_loc_string(f, raw);
      out += text ? *text : "?";
      continue;
    }
    if (static_cast<size_t>(f.offset) + f.size > raw.size()) {
      out += "?";
      continue;
    }
    const uint8_t* p = raw.data() + f.offset;
    if (f.is_string) {
      out.append(reinterpret_cast<const char*>(p), strnlen(reinterpret_cast<const char*>(p), f.size));
      continue;
    }
    switch (f.size) {
      case 1: out += f.is_signed ? fmt::format("{}", load<int8_t>(p)) : fmt::format("{}", load<uint8_t>(p)); break;
      case 2: out += f.is_signed ? fmt::format("{}", load<int16_t>(p)) : fmt::format("{}", load<uint16_t>(p)); break;
      case 4: out += f.is_signed ? fmt::format("{}", load<int32_t>(p)) : fmt::format("{}", load<uint32_t>(p)); break;
      case 8: out += f.is_signed ? fmt::format("{}", load<int64_t>(p)) : fmt::format("{:#x}", load<uint64_t>(p)); break;
      default: {
        out += "0x";
        for (uint32_t i = 0; i < f.size; ++i) out += fmt::format("{:02x}", p[i]);
      }
    }
  }
  return out;
}

}  // namespace sonde::format
