// pprof export: the Profile's tables map one to one onto profile.proto
// (mappings, functions, locations with inline lines), and each aggregated
// ProfileSample becomes one pprof Sample with pid/tid/comm/cpu labels.
//
// The message is encoded directly with protozero (header-only), so the sonde
// binary loads no protobuf library at start-up. The bytes are those
// libprotobuf writes for the same message: fields in field-number order,
// proto3 scalars equal to 0 / false omitted, repeated scalars packed, and
// every element of a repeated message or string written (even empty ones).
#include <protozero/basic_pbf_builder.hpp>
#include <protozero/pbf_writer.hpp>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "format/event_kind.h"
#include "convert/convert.h"
#include "convert/proto3_fields.h"
#include "util/error.h"
#include "util/mapped_path.h"

namespace sonde::convert {

namespace {

// Field numbers of pprof's profile.proto (src/convert/profile.proto, the
// schema reference), one enum per message, named as the fields there.
namespace pb {
using Tag = protozero::pbf_tag_type;
enum class Profile : Tag {
  sample_type = 1,
  sample = 2,
  mapping = 3,
  location = 4,
  function = 5,
  string_table = 6,
  drop_frames = 7,
  keep_frames = 8,
  time_nanos = 9,
  duration_nanos = 10,
  period_type = 11,
  period = 12,
  comment = 13,
  default_sample_type = 14,
};
enum class ValueType : Tag { type = 1, unit = 2 };
enum class Sample : Tag { location_id = 1, value = 2, label = 3 };
enum class Label : Tag { key = 1, str = 2, num = 3, num_unit = 4 };
enum class Mapping : Tag {
  id = 1,
  memory_start = 2,
  memory_limit = 3,
  file_offset = 4,
  filename = 5,
  build_id = 6,
  has_functions = 7,
  has_filenames = 8,
  has_line_numbers = 9,
  has_inline_frames = 10,
};
enum class Location : Tag { id = 1, mapping_id = 2, address = 3, line = 4, is_folded = 5 };
enum class Line : Tag { function_id = 1, line = 2, column = 3 };
enum class Function : Tag { id = 1, name = 2, system_name = 3, filename = 4, start_line = 5 };

using proto3::Builder;
using proto3::put_bool;
using proto3::put_int64;
using proto3::put_uint64;
}  // namespace pb

// The pprof string table: the Profile's strings (both have "" at 0, so
// Profile StringIds are valid pprof indices), then the few strings only
// pprof needs (value types, label keys, comments) that the Profile does not
// hold, in the order they were first asked for. A Profile can hold 100K+
// strings: rather than index them all to look up a dozen, the wanted strings
// are collected first (want) and found in one pass (resolve).
class StringTable {
 public:
  using Ref = uint32_t;  // a wanted string, by the order it was first asked for

  explicit StringTable(const analysis::Profile& p) : base_(p.all_strings()) {}

  Ref want(std::string_view s) {
    auto it = slot_.find(s);
    if (it != slot_.end()) return it->second;
    const std::string& kept = wanted_.emplace_back(s);  // deque: references stay valid
    const auto ref = static_cast<Ref>(wanted_.size() - 1);
    slot_.emplace(kept, ref);
    return ref;
  }

  // After the last want(): each wanted string's index.
  void resolve() {
    id_.assign(wanted_.size(), -1);
    size_t longest = 0;
    for (const auto& w : wanted_) longest = std::max(longest, w.size());
    std::vector<uint8_t> length_wanted(longest + 1, 0);  // only these lengths need a lookup
    for (const auto& w : wanted_) length_wanted[w.size()] = 1;
    for (size_t i = 0; i < base_.size(); ++i) {
      const std::string& s = base_[i];
      if (s.size() > longest || !length_wanted[s.size()]) continue;
      auto it = slot_.find(s);
      if (it != slot_.end() && id_[it->second] < 0) id_[it->second] = static_cast<int64_t>(i);
    }
    for (Ref r = 0; r < wanted_.size(); ++r) {
      if (id_[r] >= 0) continue;
      id_[r] = static_cast<int64_t>(base_.size() + appended_.size());
      appended_.push_back(r);
    }
  }
  int64_t operator[](Ref r) const { return id_[r]; }

  void write(pb::Builder<pb::Profile>& out) const {
    for (const std::string& s : base_) out.add_string(pb::Profile::string_table, s);
    for (Ref r : appended_) out.add_string(pb::Profile::string_table, wanted_[r]);
  }

 private:
  const std::vector<std::string>& base_;
  std::deque<std::string> wanted_;
  std::unordered_map<std::string_view, Ref> slot_;
  std::vector<int64_t> id_;    // by Ref, after resolve()
  std::vector<Ref> appended_;  // the wanted strings the Profile lacks, in order
};

// A ValueType message. protozero drops a nested message left empty, but
// protobuf writes every set message, so an all-zero one is written as such.
void write_value_type(pb::Builder<pb::Profile>& out, pb::Profile field, int64_t type, int64_t unit) {
  if (type == 0 && unit == 0) {
    out.add_message(field, "", 0);
    return;
  }
  pb::Builder<pb::ValueType> vt{out, field};
  pb::put_int64(vt, pb::ValueType::type, type);
  pb::put_int64(vt, pb::ValueType::unit, unit);
}

// cpu-clock/task-clock are time: the pprof convention for CPU profiles is
// "cpu"/"nanoseconds" (what Pyroscope and Parca look for). Other events are
// counted occurrences of the event itself. Off-CPU time is nanoseconds of
// its own kind: "off-cpu" (blocked) and "off-cpu-preempt" (runnable), so
// `go tool pprof -sample_index=off-cpu` picks it beside "cpu".
std::pair<std::string, std::string> period_type(const analysis::ProfileEvent& e) {
  switch (e.kind) {
    case format::EventKind::kOffcpuBlocked: return {"off-cpu", "nanoseconds"};
    case format::EventKind::kOffcpuRunnable: return {"off-cpu-preempt", "nanoseconds"};
    case format::EventKind::kCpuTime: return {"cpu", "nanoseconds"};
    case format::EventKind::kSdtHit:
    case format::EventKind::kTracepoint:
    case format::EventKind::kCount: break;
  }
  return {e.name, "count"};
}

void gzip_to(const std::string& data, std::ostream& out) {
  z_stream z{};
  // 15 window bits + 16: a gzip header and trailer, which pprof expects.
  // Z_BEST_SPEED, as Go's runtime/pprof writes its profiles: the default
  // level took ~490 ms of a 1.2 s export of 199K samples.
  if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw_runtime("pprof: cannot initialize zlib");
  std::string buf(1 << 18, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  int rc = Z_OK;
  // deflate takes uInt lengths: feed inputs larger than 4 GiB in slices.
  size_t fed = data.size();
  if (data.size() > UINT32_MAX) z.avail_in = UINT32_MAX, fed = UINT32_MAX;
  do {
    if (z.avail_in == 0 && fed < data.size()) {
      size_t n = std::min<size_t>(data.size() - fed, UINT32_MAX);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + fed));
      z.avail_in = static_cast<uInt>(n);
      fed += n;
    }
    z.next_out = reinterpret_cast<Bytef*>(buf.data());
    z.avail_out = static_cast<uInt>(buf.size());
    rc = deflate(&z, fed == data.size() ? Z_FINISH : Z_NO_FLUSH);
    out.write(buf.data(), static_cast<std::streamsize>(buf.size() - z.avail_out));
  } while (rc == Z_OK || rc == Z_BUF_ERROR);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw_runtime("pprof: gzip compression failed ({})", rc);
  if (!out) throw_runtime("pprof: cannot write the output");
}

// The string indices and scalars of the Profile message besides its tables.
struct ProfileHeader {
  struct ValueType {
    int64_t type = 0, unit = 0;
  };
  std::vector<ValueType> sample_types;  // for event k: [2k] samples/count, [2k+1] its period
  std::optional<ValueType> period_type;  // the first event's
  int64_t period = 0;                    // the first event's mean period
  std::vector<int64_t> comments;
  int64_t default_sample_type = 0;
  int64_t pid_key = 0, tid_key = 0, comm_key = 0, cpu_key = 0;  // label keys
};

// Asks for every extra string before anything is written (the string
// table, field 6, follows the samples), in the order they were always
// appended: sample types, period type, comments, label keys.
//
// The first event's names are the conventional ones; later events are
// prefixed with their name so every sample type has a distinct name
// (go tool pprof -sample_index=NAME).
ProfileHeader resolve_header(const analysis::Profile& p, StringTable& strings) {
  using Ref = StringTable::Ref;
  std::vector<std::pair<Ref, Ref>> sample_types;
  for (size_t k = 0; k < p.events.size(); ++k) {
    auto [ptype, punit] = period_type(p.events[k]);
    const Ref count_type = strings.want(k == 0 ? "samples" : p.events[k].name + "_samples");
    sample_types.emplace_back(count_type, strings.want("count"));
    const Ref period_type_ref = strings.want(k == 0 || ptype != "cpu" ? ptype : p.events[k].name);
    sample_types.emplace_back(period_type_ref, strings.want(punit));
  }
  std::optional<std::pair<Ref, Ref>> period_refs;
  ProfileHeader h;
  if (!p.events.empty()) {
    const auto& e0 = p.events[0];
    auto [ptype, punit] = period_type(e0);
    period_refs.emplace(strings.want(ptype), strings.want(punit));
    h.period = e0.samples ? static_cast<int64_t>(e0.period / e0.samples) : 0;
  }
  std::vector<Ref> comment_refs;
  for (const std::string* c : {&p.hostname, &p.os_release, &p.cmdline})
    if (!c->empty()) comment_refs.push_back(strings.want(*c));
  const Ref r_pid = strings.want("pid"), r_tid = strings.want("tid"), r_comm = strings.want("comm"),
            r_cpu = strings.want("cpu");

  strings.resolve();
  for (auto [type, unit] : sample_types) h.sample_types.push_back({strings[type], strings[unit]});
  if (period_refs) h.period_type = ProfileHeader::ValueType{strings[period_refs->first], strings[period_refs->second]};
  for (Ref r : comment_refs) h.comments.push_back(strings[r]);
  // Default view: the first event's period, which is what perf report and
  // sonde report show percentages of.
  if (!h.sample_types.empty()) h.default_sample_type = h.sample_types[1].type;
  h.pid_key = strings[r_pid];
  h.tid_key = strings[r_tid];
  h.comm_key = strings[r_comm];
  h.cpu_key = strings[r_cpu];
  return h;
}

// What each mapping's locations have: pprof tools symbolize the mappings
// without has_functions themselves (by build-id in Parca), so their
// unresolved locations are left as bare addresses.
struct MappingFlags {
  std::vector<uint8_t> unresolved, lines, inlined;  // by mapping index
};

MappingFlags mapping_flags(const analysis::Profile& p) {
  const size_t n = p.mappings.size();
  MappingFlags f{std::vector<uint8_t>(n, 0), std::vector<uint8_t>(n, 0), std::vector<uint8_t>(n, 0)};
  for (const auto& loc : p.locations) {
    if (loc.mapping >= n) continue;
    if (!p.functions[loc.function].resolved) f.unresolved[loc.mapping] = 1;
    for (const auto& l : loc.lines)
      if (l.line) f.lines[loc.mapping] = 1;
    if (loc.lines.size() > 1) f.inlined[loc.mapping] = 1;
  }
  return f;
}

// pprof treats the first mapping as the main binary (its "File:" line,
// and the default for symbolization): the executable holding the most
// sampled leaf frames (by period), not whatever was mapped first.
size_t main_mapping(const analysis::Profile& p) {
  std::vector<uint64_t> exe_weight(p.mappings.size(), 0);
  for (const auto& s : p.samples) {
    if (s.stack == UINT32_MAX) continue;
    uint32_t m = p.locations[p.nodes[s.stack].location].mapping;
    if (m < p.mappings.size()) exe_weight[m] += s.period ? s.period : s.count;
  }
  size_t main_map = 0;
  bool found = false;
  for (size_t i = 0; i < p.mappings.size(); ++i) {
    const auto& m = p.mappings[i];
    const bool library = m.kernel || is_library_path(p.str(m.path));
    if (!library && (!found || exe_weight[i] > exe_weight[main_map])) main_map = i, found = true;
  }
  return main_map;
}

// Mapping ids: the main mapping gets 1, the others keep their order.
struct MappingIds {
  std::vector<uint64_t> id;  // by mapping index
  std::vector<size_t> by_id;  // mapping index by id - 1
};

MappingIds mapping_ids(const analysis::Profile& p) {
  const size_t main_map = main_mapping(p);
  MappingIds ids{std::vector<uint64_t>(p.mappings.size()), std::vector<size_t>(p.mappings.size())};
  for (size_t i = 0, next = 2; i < p.mappings.size(); ++i) ids.id[i] = i == main_map ? 1 : next++;
  for (size_t i = 0; i < p.mappings.size(); ++i) ids.by_id[ids.id[i] - 1] = i;
  return ids;
}

// Samples: nothing is allocated per sample (the location buffer is reused,
// the values are written as they are produced). A sample is never empty (its
// labels have keys), nor are the messages after it (their ids start at 1),
// so protozero dropping empty nested messages never applies.
void write_samples(pb::Builder<pb::Profile>& prof, const analysis::Profile& p, const ProfileHeader& h) {
  const size_t nev = p.events.size();
  std::vector<uint32_t> locs;
  for (const auto& s : p.samples) {
    pb::Builder<pb::Sample> ps{prof, pb::Profile::sample};
    p.stack_locations(s.stack, locs);  // leaf first, as pprof wants
    {
      protozero::packed_field_uint64 ids{ps, pb::Sample::location_id};
      for (uint32_t l : locs) ids.add_element(uint64_t{l} + 1);
    }  // an empty stack leaves no field, as in protobuf
    {
      protozero::packed_field_int64 values{ps, pb::Sample::value};
      for (size_t v = 0; v < 2 * nev; ++v)
        values.add_element(v == 2 * s.event       ? static_cast<int64_t>(s.count)
                           : v == 2 * s.event + 1 ? static_cast<int64_t>(s.period)
                                                  : 0);
    }
    const std::pair<int64_t, int64_t> nums[] = {{h.pid_key, s.pid}, {h.tid_key, s.tid}};
    for (auto [key, num] : nums) {
      pb::Builder<pb::Label> l{ps, pb::Sample::label};
      pb::put_int64(l, pb::Label::key, key);
      pb::put_int64(l, pb::Label::num, num);
    }
    {
      pb::Builder<pb::Label> l{ps, pb::Sample::label};
      pb::put_int64(l, pb::Label::key, h.comm_key);
      pb::put_int64(l, pb::Label::str, s.comm);
    }
    {
      pb::Builder<pb::Label> l{ps, pb::Sample::label};
      pb::put_int64(l, pb::Label::key, h.cpu_key);
      pb::put_int64(l, pb::Label::num, s.cpu);
    }
  }
}

void write_mappings(pb::Builder<pb::Profile>& prof, const analysis::Profile& p, const MappingIds& ids) {
  const MappingFlags flags = mapping_flags(p);
  for (size_t i : ids.by_id) {
    const auto& m = p.mappings[i];
    pb::Builder<pb::Mapping> pm{prof, pb::Profile::mapping};
    pb::put_uint64(pm, pb::Mapping::id, ids.id[i]);
    pb::put_uint64(pm, pb::Mapping::memory_start, m.start);
    pb::put_uint64(pm, pb::Mapping::memory_limit, m.end);
    pb::put_uint64(pm, pb::Mapping::file_offset, m.pgoff);
    pb::put_int64(pm, pb::Mapping::filename, m.object ? m.object : m.path);
    pb::put_int64(pm, pb::Mapping::build_id, m.build_id);
    pb::put_bool(pm, pb::Mapping::has_functions, !flags.unresolved[i]);
    pb::put_bool(pm, pb::Mapping::has_filenames, flags.lines[i] != 0);
    pb::put_bool(pm, pb::Mapping::has_line_numbers, flags.lines[i] != 0);
    pb::put_bool(pm, pb::Mapping::has_inline_frames, flags.inlined[i] != 0);
  }
}

void write_locations(pb::Builder<pb::Profile>& prof, const analysis::Profile& p, const MappingIds& ids) {
  for (size_t i = 0; i < p.locations.size(); ++i) {
    const auto& loc = p.locations[i];
    pb::Builder<pb::Location> pl{prof, pb::Profile::location};
    pb::put_uint64(pl, pb::Location::id, i + 1);
    pb::put_uint64(pl, pb::Location::mapping_id, loc.mapping < p.mappings.size() ? ids.id[loc.mapping] : 0);
    pb::put_uint64(pl, pb::Location::address, loc.address);
    const bool resolved = p.functions[loc.function].resolved;
    // Unresolved addresses inside a known mapping stay bare (see
    // MappingFlags); without a mapping nothing could symbolize them later,
    // so they keep their placeholder function name.
    if (!resolved && loc.mapping < p.mappings.size()) continue;
    if (loc.lines.empty()) {
      pb::Builder<pb::Line> line{pl, pb::Location::line};
      pb::put_uint64(line, pb::Line::function_id, uint64_t{loc.function} + 1);
    } else {
      for (const auto& l : loc.lines) {
        pb::Builder<pb::Line> line{pl, pb::Location::line};
        pb::put_uint64(line, pb::Line::function_id, uint64_t{l.function} + 1);
        pb::put_int64(line, pb::Line::line, l.line);
      }
    }
  }
}

void write_functions(pb::Builder<pb::Profile>& prof, const analysis::Profile& p) {
  for (size_t i = 0; i < p.functions.size(); ++i) {
    const auto& f = p.functions[i];
    pb::Builder<pb::Function> pf{prof, pb::Profile::function};
    pb::put_uint64(pf, pb::Function::id, i + 1);
    pb::put_int64(pf, pb::Function::name, f.name);
    pb::put_int64(pf, pb::Function::system_name, f.raw_name);
    pb::put_int64(pf, pb::Function::filename, f.file);
  }
}

// The Profile, fields in field-number order as protobuf writes them. Nested
// messages are written in place (protozero reserves their length and closes
// the gap when they end).
std::string encode_profile(const analysis::Profile& p) {
  StringTable strings(p);
  const ProfileHeader h = resolve_header(p, strings);
  const MappingIds ids = mapping_ids(p);
  std::string raw;
  raw.reserve(p.samples.size() * 48 + p.locations.size() * 24 + p.all_strings().size() * 32 + 4096);
  {
    pb::Builder<pb::Profile> prof{raw};
    for (const auto& vt : h.sample_types) write_value_type(prof, pb::Profile::sample_type, vt.type, vt.unit);
    write_samples(prof, p, h);
    write_mappings(prof, p, ids);
    write_locations(prof, p, ids);
    write_functions(prof, p);
    strings.write(prof);
    // drop_frames, keep_frames, time_nanos, duration_nanos: not set.
    if (h.period_type) write_value_type(prof, pb::Profile::period_type, h.period_type->type, h.period_type->unit);
    pb::put_int64(prof, pb::Profile::period, h.period);
    prof.add_packed_int64(pb::Profile::comment, h.comments.begin(), h.comments.end());  // nothing when empty
    pb::put_int64(prof, pb::Profile::default_sample_type, h.default_sample_type);
  }
  return raw;
}

}  // namespace

void write_pprof(const analysis::Profile& p, std::ostream& out) {
  std::string raw = encode_profile(p);
  // protobuf refuses to serialize (and its readers to parse) a message of
  // 2 GiB or more.
  if (raw.size() > INT_MAX) throw_runtime("pprof: cannot serialize the profile (over 2 GiB?)");
  gzip_to(raw, out);
}

}  // namespace sonde::convert
