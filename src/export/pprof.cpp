// pprof export: the Profile's tables map one to one onto profile.proto
// (mappings, functions, locations with inline lines), and each aggregated
// ProfileSample becomes one pprof Sample with pid/tid/comm/cpu labels.
#include <google/protobuf/arena.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <zlib.h>

#include <string>
#include <unordered_map>

#include "export/export.h"
#include "profile.pb.h"  // generated from profile.proto
#include "util/error.h"

namespace sonde::exporter {

namespace pb = perftools::profiles;

namespace {

// The pprof string table starts as a copy of the Profile's (both have ""
// at 0, so Profile StringIds are valid pprof indices) and grows with the
// few strings only pprof needs (value types, label keys).
class StringTable {
 public:
  StringTable(const report::Profile& p, pb::Profile& out) : out_(out) {
    const auto& all = p.all_strings();
    out_.mutable_string_table()->Reserve(static_cast<int>(all.size() + 32));
    for (size_t i = 0; i < all.size(); ++i) {
      out_.add_string_table(all[i]);
      index_.emplace(all[i], static_cast<int64_t>(i));
    }
  }
  int64_t id(const std::string& s) {
    auto [it, fresh] = index_.try_emplace(s, static_cast<int64_t>(out_.string_table_size()));
    if (fresh) out_.add_string_table(s);
    return it->second;
  }

 private:
  pb::Profile& out_;
  std::unordered_map<std::string, int64_t> index_;
};

// cpu-clock/task-clock are time: the pprof convention for CPU profiles is
// "cpu"/"nanoseconds" (what Pyroscope and Parca look for). Other events are
// counted occurrences of the event itself.
std::pair<std::string, std::string> period_type(const report::ProfileEvent& e) {
  if (e.unit == "nanoseconds") return {"cpu", "nanoseconds"};
  return {e.name, "count"};
}

void gzip_to(const std::string& data, std::ostream& out) {
  z_stream z{};
  // 15 window bits + 16: a gzip header and trailer, which pprof expects.
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
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

}  // namespace

void write_pprof(const report::Profile& p, std::ostream& out) {
  // One arena for the whole message tree: a million samples would otherwise
  // be millions of small heap allocations.
  google::protobuf::Arena arena;
  auto* prof = google::protobuf::Arena::CreateMessage<pb::Profile>(&arena);
  StringTable strings(p, *prof);

  // Value layout: for event k, [2k] = samples/count, [2k+1] = its period.
  // The first event's names are the conventional ones; later events are
  // prefixed with their name so every sample type has a distinct name
  // (go tool pprof -sample_index=NAME).
  const size_t nev = p.events.size();
  for (size_t k = 0; k < nev; ++k) {
    auto [ptype, punit] = period_type(p.events[k]);
    auto* count = prof->add_sample_type();
    count->set_type(strings.id(k == 0 ? "samples" : p.events[k].name + "_samples"));
    count->set_unit(strings.id("count"));
    auto* period = prof->add_sample_type();
    period->set_type(strings.id(k == 0 || ptype != "cpu" ? ptype : p.events[k].name));
    period->set_unit(strings.id(punit));
  }
  if (nev > 0) {
    const auto& e0 = p.events[0];
    auto [ptype, punit] = period_type(e0);
    prof->mutable_period_type()->set_type(strings.id(ptype));
    prof->mutable_period_type()->set_unit(strings.id(punit));
    prof->set_period(e0.samples ? static_cast<int64_t>(e0.period / e0.samples) : 0);
    // Default view: the first event's period, which is what perf report
    // and sonde report show percentages of.
    prof->set_default_sample_type(prof->sample_type(1).type());
  }
  for (const std::string* c : {&p.hostname, &p.os_release, &p.cmdline})
    if (!c->empty()) prof->add_comment(strings.id(*c));

  // Which mappings have every location symbolized: pprof tools symbolize
  // the other mappings themselves (by build-id in Parca), so their
  // unresolved locations are left as bare addresses.
  std::vector<uint8_t> map_unresolved(p.mappings.size(), 0), map_lines(p.mappings.size(), 0),
      map_inline(p.mappings.size(), 0);
  for (const auto& loc : p.locations) {
    if (loc.mapping >= p.mappings.size()) continue;
    if (!p.functions[loc.function].resolved) map_unresolved[loc.mapping] = 1;
    for (const auto& l : loc.lines)
      if (l.line) map_lines[loc.mapping] = 1;
    if (loc.lines.size() > 1) map_inline[loc.mapping] = 1;
  }

  // pprof treats the first mapping as the main binary (its "File:" line,
  // and the default for symbolization): put first the executable holding
  // the most sampled leaf frames (by period), not whatever was mapped first.
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
    std::string_view base = p.str(m.path).substr(p.str(m.path).rfind('/') + 1);
    bool library = m.kernel || base.find(".so") != std::string_view::npos || base.empty() || base[0] == '[';
    if (!library && (!found || exe_weight[i] > exe_weight[main_map])) main_map = i, found = true;
  }
  // Mapping ids: main_map gets 1, the others keep their order.
  std::vector<uint64_t> map_id(p.mappings.size());
  for (size_t i = 0, next = 2; i < p.mappings.size(); ++i) map_id[i] = i == main_map ? 1 : next++;
  std::vector<size_t> by_id(p.mappings.size());
  for (size_t i = 0; i < p.mappings.size(); ++i) by_id[map_id[i] - 1] = i;

  prof->mutable_mapping()->Reserve(static_cast<int>(p.mappings.size()));
  for (size_t i : by_id) {
    const auto& m = p.mappings[i];
    auto* pm = prof->add_mapping();
    pm->set_id(map_id[i]);
    pm->set_memory_start(m.start);
    pm->set_memory_limit(m.end);
    pm->set_file_offset(m.pgoff);
    pm->set_filename(m.path);
    pm->set_build_id(m.build_id);
    pm->set_has_functions(!map_unresolved[i]);
    pm->set_has_filenames(map_lines[i] != 0);
    pm->set_has_line_numbers(map_lines[i] != 0);
    pm->set_has_inline_frames(map_inline[i] != 0);
  }

  prof->mutable_function()->Reserve(static_cast<int>(p.functions.size()));
  for (size_t i = 0; i < p.functions.size(); ++i) {
    const auto& f = p.functions[i];
    auto* pf = prof->add_function();
    pf->set_id(i + 1);
    pf->set_name(f.name);
    pf->set_system_name(f.raw_name);
    pf->set_filename(f.file);
  }

  prof->mutable_location()->Reserve(static_cast<int>(p.locations.size()));
  for (size_t i = 0; i < p.locations.size(); ++i) {
    const auto& loc = p.locations[i];
    auto* pl = prof->add_location();
    pl->set_id(i + 1);
    pl->set_mapping_id(loc.mapping < p.mappings.size() ? map_id[loc.mapping] : 0);
    pl->set_address(loc.address);
    const bool resolved = p.functions[loc.function].resolved;
    // Unresolved addresses inside a known mapping stay bare (see above);
    // without a mapping nothing could symbolize them later, so they keep
    // their placeholder function name.
    if (!resolved && loc.mapping < p.mappings.size()) continue;
    if (loc.lines.empty()) {
      auto* line = pl->add_line();
      line->set_function_id(loc.function + 1);
    } else {
      for (const auto& l : loc.lines) {
        auto* line = pl->add_line();
        line->set_function_id(l.function + 1);
        line->set_line(l.line);
      }
    }
  }

  const int64_t k_pid = strings.id("pid"), k_tid = strings.id("tid"), k_comm = strings.id("comm"),
                k_cpu = strings.id("cpu");
  prof->mutable_sample()->Reserve(static_cast<int>(p.samples.size()));
  std::vector<uint32_t> locs;
  for (const auto& s : p.samples) {
    auto* ps = prof->add_sample();
    p.stack_locations(s.stack, locs);  // leaf first, as pprof wants
    auto* ids = ps->mutable_location_id();
    ids->Reserve(static_cast<int>(locs.size()));
    for (uint32_t l : locs) ids->AddAlreadyReserved(l + 1);
    auto* values = ps->mutable_value();
    values->Resize(static_cast<int>(2 * nev), 0);
    values->Set(static_cast<int>(2 * s.event), static_cast<int64_t>(s.count));
    values->Set(static_cast<int>(2 * s.event + 1), static_cast<int64_t>(s.period));
    auto* l = ps->add_label();
    l->set_key(k_pid), l->set_num(s.pid);
    l = ps->add_label();
    l->set_key(k_tid), l->set_num(s.tid);
    l = ps->add_label();
    l->set_key(k_comm), l->set_str(s.comm);
    l = ps->add_label();
    l->set_key(k_cpu), l->set_num(s.cpu);
  }

  std::string raw;
  if (!prof->SerializeToString(&raw)) throw_runtime("pprof: cannot serialize the profile (over 2 GiB?)");
  gzip_to(raw, out);
}

}  // namespace sonde::exporter
