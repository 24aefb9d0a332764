#include "report/report_fields.h"

#include <algorithm>
#include <array>
#include <utility>

#include "util/error.h"
#include "util/text_join.h"

namespace sonde::report {

namespace {

constexpr std::array<std::pair<std::string_view, Field>, 17> kNames = {{
    {"overhead", Field::kOverhead},
    {"overhead_sys", Field::kOverheadSys},
    {"overhead_us", Field::kOverheadUs},
    {"overhead_children", Field::kChildren},
    {"sample", Field::kSample},
    {"period", Field::kPeriod},
    {"comm", Field::kComm},
    {"pid", Field::kPid},
    {"tid", Field::kTid},
    {"dso", Field::kDso},
    {"sym", Field::kSym},
    {"symbol", Field::kSym},
    {"srcline", Field::kSrcline},
    {"parent", Field::kParent},
    {"cpu", Field::kCpu},
    {"socket", Field::kSocket},
    {"core", Field::kCore},
}};

void add_once(std::vector<Field>& list, Field f) {
  if (std::find(list.begin(), list.end(), f) == list.end()) list.push_back(f);
}

std::vector<Field> parse_list(std::string_view text, const char* option) {
  std::vector<Field> out;
  size_t at = 0;
  while (true) {
    size_t comma = text.find(',', at);
    std::string_view name = text.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at);
    auto it = std::find_if(kNames.begin(), kNames.end(), [&](const auto& n) { return n.first == name; });
    if (it == kNames.end()) {
      std::string known;
      for (const auto& [n, f] : kNames) append_separated(known, ", ", n);
      if (std::string_view(option) == "--sort") throw_usage("unknown sort key '{}' (keys: {})", name, known);
      throw_usage("-F: unknown field '{}' (fields: {})", name, known);
    }
    add_once(out, it->second);
    if (comma == std::string_view::npos) return out;
    at = comma + 1;
  }
}

}  // namespace

bool is_key(Field f) {
  switch (f) {
    case Field::kChildren:
    case Field::kOverhead:
    case Field::kOverheadSys:
    case Field::kOverheadUs:
    case Field::kSample:
    case Field::kPeriod:
      return false;
    default:
      return true;
  }
}

std::string_view field_name(Field f) {
  for (const auto& [n, field] : kNames)
    if (field == f) return n;
  return "";
}

bool FieldLayout::has(Field f) const {
  return std::find(sort.begin(), sort.end(), f) != sort.end() ||
         std::find(columns.begin(), columns.end(), f) != columns.end();
}

FieldLayout layout_fields(const FieldRequest& r) {
  FieldLayout out;
  const bool strict = r.fields && !r.fields->starts_with('+');
  if (r.sort && r.sort->empty()) throw_usage("--sort needs at least one key");
  if (strict) {
    // -F names every column: --sort's keys that it lacks are added.
    out.columns = parse_list(*r.fields, "-F");
    out.named = true;
    if (r.sort) out.sort = parse_list(*r.sort, "--sort");
  } else {
    out.sort = r.sort ? parse_list(*r.sort, "--sort") : std::vector<Field>{Field::kComm, Field::kDso, Field::kSym};
    // perf puts the overhead first unless --sort places it.
    if (std::find(out.sort.begin(), out.sort.end(), Field::kOverhead) == out.sort.end())
      out.sort.insert(out.sort.begin(), Field::kOverhead);
    if (r.children && std::find(out.sort.begin(), out.sort.end(), Field::kChildren) == out.sort.end())
      out.sort.insert(out.sort.begin(), Field::kChildren);
    if (r.children) out.columns.push_back(Field::kChildren);
    out.columns.push_back(Field::kOverhead);
    if (r.cpu_utilization) out.columns.insert(out.columns.end(), {Field::kOverheadSys, Field::kOverheadUs});
    if (r.show_samples) out.columns.push_back(Field::kSample);
    if (r.total_period) out.columns.push_back(Field::kPeriod);
    if (r.fields)
      for (Field f : parse_list(r.fields->substr(1), "-F")) add_once(out.columns, f);
  }
  for (Field f : out.sort) add_once(out.columns, f);
  for (Field f : out.columns) add_once(out.sort, f);
  return out;
}

}  // namespace sonde::report
