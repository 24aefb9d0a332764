#include "probe/sdt_stats.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <fnmatch.h>


#include "format/session.h"

namespace sonde::probe {

namespace {

std::string int128_text(__int128 v) {
  if (v >= 0 && v <= static_cast<__int128>(UINT64_MAX)) return std::to_string(static_cast<uint64_t>(v));
  if (v < 0 && v >= static_cast<__int128>(INT64_MIN)) return std::to_string(static_cast<int64_t>(v));
  // A sum beyond 64 bits: printed only through the mean.
  return fmt::format("{}", static_cast<double>(v));
}

}  // namespace

void SdtStats::add(const format::Sample& s) {
  if (!is_sdt_sample(s)) return;
  if (!decode_sdt_values(s.raw, values_)) return;
  Probe& p = probes_[s.event->name];
  ++p.hits;
  if (p.args.size() < values_.size()) p.args.resize(values_.size());
  for (size_t i = 0; i < values_.size(); ++i) {
    const SdtValue& v = values_[i];
    Arg& a = p.args[i];
    if (v.fault) {
      ++a.faults;
      continue;
    }
    const bool first = a.count++ == 0;
    a.is_string = v.is_string;
    if (v.is_string) continue;  // counted; strings have no min, max or histogram
    a.is_float = v.is_float;
    a.is_signed = v.is_signed;
    if (v.is_float) {
      double d = sdt_float(v);
      a.fmin = first ? d : std::min(a.fmin, d);
      a.fmax = first ? d : std::max(a.fmax, d);
      a.fsum += d;
      continue;
    }
    const __int128 x = v.is_signed ? static_cast<__int128>(static_cast<int64_t>(v.bits)) : static_cast<__int128>(v.bits);
    a.min = first ? x : std::min(a.min, x);
    a.max = first ? x : std::max(a.max, x);
    a.sum += x;
    if (v.is_signed) a.hist.add_signed(static_cast<int64_t>(v.bits));
    else a.hist.add_unsigned(v.bits);
  }
}

namespace {

bool wanted(const std::string& name, const std::vector<std::string>& globs) {
  bool yes = globs.empty();
  for (const auto& g : globs) yes |= ::fnmatch(g.c_str(), name.c_str(), 0) == 0;
  return yes;
}

nlohmann::json exact(__int128 v, bool is_signed) {
  if (is_signed) return static_cast<int64_t>(v);
  return static_cast<uint64_t>(v);
}

}  // namespace

bool SdtStats::any(const std::vector<std::string>& globs) const {
  for (const auto& [name, p] : probes_)
    if (wanted(name, globs)) return true;
  return false;
}

std::string SdtStats::format_json(const std::vector<std::string>& globs) const {
  nlohmann::json probes = nlohmann::json::array();
  for (const auto& [name, p] : probes_) {
    if (!wanted(name, globs)) continue;
    nlohmann::json args = nlohmann::json::array();
    for (const Arg& a : p.args) {
      nlohmann::json j{{"count", a.count}, {"unreadable", a.faults}};
      if (a.is_string) {
        j["string"] = true;
      } else if (a.count && a.is_float) {
        j["min"] = a.fmin, j["max"] = a.fmax, j["mean"] = a.fsum / static_cast<double>(a.count);
      } else if (a.count) {
        j["min"] = exact(a.min, a.is_signed), j["max"] = exact(a.max, a.is_signed);
        j["mean"] = static_cast<double>(a.sum) / static_cast<double>(a.count);
        nlohmann::json hist = nlohmann::json::array();
        const auto& buckets = a.hist.buckets;
        for (size_t b = 0; b < buckets.size(); ++b) {
          if (!buckets[b]) continue;
          nlohmann::json low, high;  // null: unbounded
          if (b == 1) low = 0, high = 1;
          else if (b >= 2) low = uint64_t{1} << (b - 2), high = b == 65 ? nlohmann::json(nullptr) : nlohmann::json(uint64_t{1} << (b - 1));
          else high = 0;
          hist.push_back({{"low", low}, {"high", high}, {"count", buckets[b]}});
        }
        j["histogram"] = std::move(hist);
      }
      args.push_back(std::move(j));
    }
    probes.push_back({{"name", name}, {"hits", p.hits}, {"args", std::move(args)}});
  }
  return nlohmann::json{{"probes", std::move(probes)}}.dump(2) + "\n";
}

std::string SdtStats::format(const std::vector<std::string>& globs) const {
  std::string out;
  auto it = std::back_inserter(out);
  for (const auto& [name, p] : probes_) {
    if (!wanted(name, globs)) continue;
    fmt::format_to(it, "{}: {} hits\n", name, p.hits);
    for (size_t i = 0; i < p.args.size(); ++i) {
      const Arg& a = p.args[i];
      fmt::format_to(it, "  arg{}: count {}", i + 1, a.count);
      if (a.faults) fmt::format_to(it, ", {} unreadable", a.faults);
      if (a.count == 0 || a.is_string) {
        fmt::format_to(it, "{}\n", a.is_string ? " (strings)" : "");
        continue;
      }
      if (a.is_float) {
        fmt::format_to(it, ", min {}, max {}, mean {}\n", a.fmin, a.fmax, a.fsum / static_cast<double>(a.count));
        continue;
      }
      const double mean = static_cast<double>(a.sum) / static_cast<double>(a.count);
      fmt::format_to(it, ", min {}, max {}, mean {}\n", int128_text(a.min), int128_text(a.max), mean);
      a.hist.print(out, "    ");
    }
  }
  return out;
}

}  // namespace sonde::probe
