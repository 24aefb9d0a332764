// OTLP profiles export: the OpenTelemetry profiles signal's
// `opentelemetry.proto.profiles.v1development.ProfilesData` (public alpha),
// field numbers as in docs/export.md. One message holds every event as its
// own Profile (OTLP gives a profile one sample type), and one dictionary
// that all of them index: mappings, locations, functions, stacks, strings
// and attributes, each table with the zero value the schema asks for at
// index 0. The bytes are those libprotobuf writes for the same message
// (fields in number order, proto3 zero scalars omitted, repeated scalars
// packed), so `protoc --decode | protoc --encode` gives them back
// (tests/fleet/otlp_test.cpp). Not compressed: ProfilesData has the fields
// of an OTLP ExportProfilesServiceRequest, the body a collector takes.

#include <fmt/format.h>

#include <climits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "convert/convert.h"
#include "convert/proto3_fields.h"
#include "format/event_kind.h"
#include "util/error.h"

namespace sonde::convert {

// Named, so that a unity build of the module (pprof.cpp's anonymous `pb`,
// its table writers) keeps this file's names apart.
namespace otlp {
namespace {

namespace pb {
using Tag = protozero::pbf_tag_type;
enum class Data : Tag { resource_profiles = 1, dictionary = 2 };
enum class ResourceProfiles : Tag { resource = 1, scope_profiles = 2 };
enum class Resource : Tag { attributes = 1 };
enum class KeyValue : Tag { key = 1, value = 2 };
enum class AnyValue : Tag { string_value = 1, int_value = 3 };
enum class ScopeProfiles : Tag { scope = 1, profiles = 2 };
enum class Scope : Tag { name = 1 };
enum class Profile : Tag { sample_type = 1, samples = 2, period_type = 5, profile_id = 7 };
enum class ValueType : Tag { type_strindex = 1, unit_strindex = 2 };
enum class Sample : Tag { stack_index = 1, attribute_indices = 2, values = 4 };
enum class Dictionary : Tag {
  mapping_table = 1,
  location_table = 2,
  function_table = 3,
  link_table = 4,
  string_table = 5,
  attribute_table = 6,
  stack_table = 7,
};
enum class Mapping : Tag { memory_start = 1, memory_limit = 2, file_offset = 3, filename_strindex = 4, attribute_indices = 5 };
enum class Location : Tag { mapping_index = 1, address = 2, lines = 3 };
enum class Line : Tag { function_index = 1, line = 2 };
enum class Function : Tag { name_strindex = 1, system_name_strindex = 2, filename_strindex = 3 };
enum class Stack : Tag { location_indices = 1 };
enum class Attribute : Tag { key_strindex = 1, value = 2 };

using proto3::Builder;
using proto3::put_int64;
using proto3::put_uint64;
// protozero drops a nested message left empty; protobuf writes it.
template <typename Parent>
void put_empty(Builder<Parent>& m, Parent f) {
  m.add_message(f, "", 0);
}
}  // namespace pb

// The dictionary's string table: "" at 0, each string once.
class Strings {
 public:
  Strings() { id(""); }
  int32_t id(std::string_view s) {
    auto it = index_.find(std::string(s));
    if (it != index_.end()) return it->second;
    const auto i = static_cast<int32_t>(table_.size());
    table_.emplace_back(s);
    index_.emplace(table_.back(), i);
    return i;
  }
  const std::vector<std::string>& table() const { return table_; }

 private:
  std::vector<std::string> table_;
  std::unordered_map<std::string, int32_t> index_;
};

// The dictionary's attribute table (KeyValueAndUnit): a zero value at 0,
// then each (key, value) once; values are strings or integers.
class Attributes {
 public:
  struct Entry {
    int32_t key = 0;
    bool is_int = false;
    int64_t number = 0;
    std::string text;
  };
  explicit Attributes(Strings& strings) : strings_(strings) { entries_.emplace_back(); }
  int32_t of(std::string_view key, int64_t v) { return add({strings_.id(key), true, v, {}}); }
  int32_t of(std::string_view key, std::string_view v) { return add({strings_.id(key), false, 0, std::string(v)}); }
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  int32_t add(Entry e) {
    // fmt, not "#" + string: gcc 12 -O3 flags the latter (-Wrestrict, a false positive).
    std::string k = e.is_int ? fmt::format("{}#{}", e.key, e.number) : fmt::format("{}${}", e.key, e.text);
    auto [it, added] = index_.emplace(std::move(k), static_cast<int32_t>(entries_.size()));
    if (added) entries_.push_back(std::move(e));
    return it->second;
  }
  Strings& strings_;
  std::vector<Entry> entries_;
  std::unordered_map<std::string, int32_t> index_;
};

// An event's sample type. OTLP's conventions: CPU time is cpu/nanoseconds,
// off-CPU time off_cpu/nanoseconds; other events count themselves.
std::pair<std::string, std::string> sample_type(const analysis::ProfileEvent& e) {
  switch (e.kind) {
    case format::EventKind::kCpuTime: return {"cpu", "nanoseconds"};
    case format::EventKind::kOffcpuBlocked: return {"off_cpu", "nanoseconds"};
    case format::EventKind::kOffcpuRunnable: return {"off_cpu_preempt", "nanoseconds"};
    case format::EventKind::kSdtHit:
    case format::EventKind::kTracepoint:
    case format::EventKind::kCount: break;
  }
  return {e.name, "count"};
}

// Stack table indices by leaf node: 0 is the empty stack.
struct Stacks {
  std::unordered_map<uint32_t, int32_t> index;  // leaf node -> stack index
  std::vector<uint32_t> leaves;                 // by stack index - 1
  int32_t of(uint32_t leaf) {
    if (leaf == UINT32_MAX) return 0;
    auto [it, added] = index.emplace(leaf, static_cast<int32_t>(leaves.size() + 1));
    if (added) leaves.push_back(leaf);
    return it->second;
  }
};

// A deterministic, non-zero 16-byte id per event (the schema calls an
// all-zero id invalid): FNV-1a of the event's name and totals.
std::string profile_id(const analysis::Profile& p, uint32_t event) {
  const auto& e = p.events[event];
  std::string id;
  uint64_t h = 1469598103934665603ull;
  const std::string text = e.name + "/" + std::to_string(e.samples) + "/" + std::to_string(e.period) + "/" + p.hostname;
  for (int half = 0; half < 2; ++half) {
    for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
    h = (h ^ uint64_t(half + 1)) * 1099511628211ull;
    for (int b = 0; b < 8; ++b) id += static_cast<char>(h >> (8 * b));
  }
  return id;
}

struct Tables {
  Strings strings;
  Attributes attributes{strings};
  Stacks stacks;
};

void write_profile(pb::Builder<pb::ScopeProfiles>& scope, const analysis::Profile& p, uint32_t event, Tables& t) {
  pb::Builder<pb::Profile> prof{scope, pb::ScopeProfiles::profiles};
  const auto [type, unit] = sample_type(p.events[event]);
  {
    pb::Builder<pb::ValueType> vt{prof, pb::Profile::sample_type};
    pb::put_int64(vt, pb::ValueType::type_strindex, t.strings.id(type));
    pb::put_int64(vt, pb::ValueType::unit_strindex, t.strings.id(unit));
  }
  std::vector<int32_t> attrs;
  for (const auto& s : p.samples) {
    if (s.event != event) continue;
    pb::Builder<pb::Sample> ps{prof, pb::Profile::samples};
    pb::put_int64(ps, pb::Sample::stack_index, t.stacks.of(s.stack));
    attrs = {t.attributes.of("process.pid", s.pid), t.attributes.of("thread.id", s.tid),
             t.attributes.of("thread.name", p.str(s.comm)), t.attributes.of("cpu.logical_number", s.cpu)};
    ps.add_packed_int32(pb::Sample::attribute_indices, attrs.begin(), attrs.end());
    const int64_t value = static_cast<int64_t>(s.period ? s.period : s.count);
    ps.add_packed_int64(pb::Sample::values, &value, &value + 1);
  }
  {
    pb::Builder<pb::ValueType> vt{prof, pb::Profile::period_type};
    pb::put_int64(vt, pb::ValueType::type_strindex, t.strings.id(type));
    pb::put_int64(vt, pb::ValueType::unit_strindex, t.strings.id(unit));
  }
  prof.add_bytes(pb::Profile::profile_id, profile_id(p, event));
}

void write_resource(pb::Builder<pb::Data>& data, const analysis::Profile& p, Tables& t) {
  pb::Builder<pb::ResourceProfiles> rp{data, pb::Data::resource_profiles};
  if (!p.hostname.empty()) {
    pb::Builder<pb::Resource> res{rp, pb::ResourceProfiles::resource};
    pb::Builder<pb::KeyValue> kv{res, pb::Resource::attributes};
    kv.add_string(pb::KeyValue::key, "host.name");
    pb::Builder<pb::AnyValue> v{kv, pb::KeyValue::value};
    v.add_string(pb::AnyValue::string_value, p.hostname);
  }
  pb::Builder<pb::ScopeProfiles> scope{rp, pb::ResourceProfiles::scope_profiles};
  {
    pb::Builder<pb::Scope> s{scope, pb::ScopeProfiles::scope};
    s.add_string(pb::Scope::name, "sonde");
  }
  for (uint32_t e = 0; e < p.events.size(); ++e) write_profile(scope, p, e, t);
}

void write_mappings(pb::Builder<pb::Dictionary>& dict, const analysis::Profile& p, Tables& t) {
  pb::put_empty(dict, pb::Dictionary::mapping_table);
  for (const auto& m : p.mappings) {
    const int32_t file = t.strings.id(p.str(m.object ? m.object : m.path));
    if (!file && !m.start && !m.end && !m.pgoff && !m.build_id) {
      pb::put_empty(dict, pb::Dictionary::mapping_table);  // keeps the indices
      continue;
    }
    pb::Builder<pb::Mapping> pm{dict, pb::Dictionary::mapping_table};
    pb::put_uint64(pm, pb::Mapping::memory_start, m.start);
    pb::put_uint64(pm, pb::Mapping::memory_limit, m.end);
    pb::put_uint64(pm, pb::Mapping::file_offset, m.pgoff);
    pb::put_int64(pm, pb::Mapping::filename_strindex, file);
    if (m.build_id) {
      const int32_t a = t.attributes.of("process.executable.build_id.gnu", p.str(m.build_id));
      pm.add_packed_int32(pb::Mapping::attribute_indices, &a, &a + 1);
    }
  }
}

// Unresolved addresses inside a known mapping stay bare (as in pprof): a
// back end symbolizes them by build-id, which a made-up name would hide.
void write_locations(pb::Builder<pb::Dictionary>& dict, const analysis::Profile& p) {
  pb::put_empty(dict, pb::Dictionary::location_table);
  std::vector<analysis::ProfileLine> lines;
  for (const auto& loc : p.locations) {
    const bool mapped = loc.mapping < p.mappings.size();
    lines.clear();
    if (p.functions[loc.function].resolved || !mapped) {
      lines = loc.lines;
      if (lines.empty()) lines.push_back({loc.function, 0});
    }
    // A line always names a function (index >= 1), so only a location
    // without mapping, address and lines is empty.
    if (!mapped && !loc.address && lines.empty()) {
      pb::put_empty(dict, pb::Dictionary::location_table);
      continue;
    }
    pb::Builder<pb::Location> pl{dict, pb::Dictionary::location_table};
    pb::put_int64(pl, pb::Location::mapping_index, mapped ? int64_t{loc.mapping} + 1 : 0);
    pb::put_uint64(pl, pb::Location::address, loc.address);
    for (const auto& l : lines) {
      pb::Builder<pb::Line> line{pl, pb::Location::lines};
      pb::put_int64(line, pb::Line::function_index, int64_t{l.function} + 1);
      pb::put_int64(line, pb::Line::line, l.line);
    }
  }
}

void write_functions(pb::Builder<pb::Dictionary>& dict, const analysis::Profile& p, Tables& t) {
  pb::put_empty(dict, pb::Dictionary::function_table);
  for (const auto& f : p.functions) {
    const int32_t name = t.strings.id(p.str(f.name)), raw = t.strings.id(p.str(f.raw_name)),
                  file = t.strings.id(p.str(f.file));
    if (!name && !raw && !file) {
      pb::put_empty(dict, pb::Dictionary::function_table);
      continue;
    }
    pb::Builder<pb::Function> pf{dict, pb::Dictionary::function_table};
    pb::put_int64(pf, pb::Function::name_strindex, name);
    pb::put_int64(pf, pb::Function::system_name_strindex, raw);
    pb::put_int64(pf, pb::Function::filename_strindex, file);
  }
}

void write_attributes(pb::Builder<pb::Dictionary>& dict, const Tables& t) {
  pb::put_empty(dict, pb::Dictionary::attribute_table);
  for (size_t i = 1; i < t.attributes.entries().size(); ++i) {
    const auto& e = t.attributes.entries()[i];
    pb::Builder<pb::Attribute> a{dict, pb::Dictionary::attribute_table};
    pb::put_int64(a, pb::Attribute::key_strindex, e.key);
    pb::Builder<pb::AnyValue> v{a, pb::Attribute::value};
    // A oneof member is written even when zero.
    if (e.is_int) v.add_int64(pb::AnyValue::int_value, e.number);
    else v.add_string(pb::AnyValue::string_value, e.text);
  }
}

void write_stacks(pb::Builder<pb::Dictionary>& dict, const analysis::Profile& p, const Tables& t) {
  pb::put_empty(dict, pb::Dictionary::stack_table);
  std::vector<uint32_t> locs;
  std::vector<int32_t> indices;
  for (uint32_t leaf : t.stacks.leaves) {
    p.stack_locations(leaf, locs);  // leaf first, as the schema wants
    indices.assign(locs.begin(), locs.end());
    for (auto& i : indices) ++i;
    pb::Builder<pb::Stack> s{dict, pb::Dictionary::stack_table};
    s.add_packed_int32(pb::Stack::location_indices, indices.begin(), indices.end());
  }
}

// Profiles first (they fill the string, attribute and stack tables), then
// the dictionary, as field numbers order them.
std::string encode(const analysis::Profile& p) {
  Tables t;
  std::string raw;
  {  // the builders close their messages when they end, before raw is returned
    pb::Builder<pb::Data> data{raw};
    write_resource(data, p, t);
    pb::Builder<pb::Dictionary> dict{data, pb::Data::dictionary};
    write_mappings(dict, p, t);
    write_locations(dict, p);
    write_functions(dict, p, t);
    pb::put_empty(dict, pb::Dictionary::link_table);
    for (const auto& s : t.strings.table()) dict.add_string(pb::Dictionary::string_table, s);
    write_attributes(dict, t);
    write_stacks(dict, p, t);
  }
  return raw;
}

}  // namespace
}  // namespace otlp

void write_otlp(const analysis::Profile& p, std::ostream& out) {
  const std::string raw = otlp::encode(p);
  if (raw.size() > INT_MAX) throw_runtime("otlp: cannot serialize the profile (over 2 GiB)");
  out.write(raw.data(), static_cast<std::streamsize>(raw.size()));
  if (!out) throw_runtime("otlp: cannot write the output");
}

}  // namespace sonde::convert
