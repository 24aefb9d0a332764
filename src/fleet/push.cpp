#include "fleet/push.h"

#include "format/event_kind.h"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <fmt/format.h>

#include <fstream>
#include <thread>
#include <tuple>

#include "analysis/directory_reader.h"
#include "analysis/profile_builder.h"
#include "fleet/http_client.h"
#include "fleet/row_binary.h"
#include "fleet/schema.h"
#include "fleet/stack_codec.h"
#include "util/error.h"
#include "util/mapped_path.h"

namespace sonde::fleet {

namespace {

int64_t clock_ns(clockid_t id) {
  timespec ts{};
  ::clock_gettime(id, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The build-id of the program, which a deploy changes: the outermost user
// frame in an executable (not a library: a stack that reaches main ends in
// libc's __libc_start_call_main), else the outermost user frame's object.
std::string root_build_id(const analysis::Profile& p, uint32_t leaf) {
  std::string program, outermost;
  for (uint32_t n = leaf; n != UINT32_MAX; n = p.nodes[n].parent) {
    const auto& loc = p.locations[p.nodes[n].location];
    if (loc.kernel || loc.mapping == UINT32_MAX) continue;
    const auto& m = p.mappings[loc.mapping];
    outermost = std::string(p.str(m.build_id));
    if (!is_library_path(p.str(m.path))) program = outermost;
  }
  return program.empty() ? outermost : program;
}

// The push's labels, then the row's probe hit arguments; args_id tells
// rows apart whose key differs only by their arguments (0 for none).
struct RowLabels {
  std::vector<std::string> keys, values;
  uint64_t args_id = 0;
};

RowLabels row_labels(const PushOptions& o, const Labels& args) {
  RowLabels l;
  for (const auto& [k, v] : o.labels) l.keys.push_back(k), l.values.push_back(v);
  if (args.empty()) return l;
  l.args_id = fnv1a("", 0);
  for (const auto& [k, v] : args) {
    l.keys.push_back(k), l.values.push_back(v);
    l.args_id = fnv1a(k.data(), k.size(), l.args_id);
    l.args_id = fnv1a(&kFieldSep, 1, l.args_id);
    l.args_id = fnv1a(v.data(), v.size(), l.args_id);
    l.args_id = fnv1a(&kFrameSep, 1, l.args_id);
  }
  return l;
}

std::string encode_rows(const PushBatch& b, const PushOptions& o, size_t first, size_t end) {
  std::vector<RowLabels> labels;
  for (const auto& args : b.args) labels.push_back(row_labels(o, args));
  if (labels.empty()) labels.push_back(row_labels(o, {}));
  RowBinary w;
  for (size_t i = first; i < end; ++i) {
    const SampleRow& r = b.rows[i];
    const RowLabels& l = labels.at(r.args);
    w.str(b.recording_id), w.u32(r.bucket), w.str(o.host), w.str(o.service), w.str(r.build_id);
    w.strings(l.keys), w.strings(l.values), w.str(r.event), w.str(r.event_unit), w.u64(r.sample_type);
    w.u32(r.attr_index), w.str(r.comm), w.u32(r.pid), w.u32(r.tid), w.u32(r.cpu);
    w.u64(r.stack_id), w.u64(l.args_id), w.u64(r.count), w.u64(r.period), w.str(r.event_kind);
  }
  return std::move(w.data());
}

// One request, retried with doubling back-off (a slow or restarting store).
void with_retry(const PushOptions& o, const std::function<void()>& request) {
  auto wait = o.first_backoff;
  for (int attempt = 1;; ++attempt) {
    try {
      request();
      return;
    } catch (const Error&) {
      if (attempt >= o.attempts) throw;
    }
    std::this_thread::sleep_for(wait);
    wait *= 2;
  }
}

void insert_with_retry(const ClickHouse& ch, const std::string& sql, const std::string& data, const PushOptions& o) {
  with_retry(o, [&] { ch.execute(sql, data); });
}

}  // namespace

std::string this_host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

std::pair<std::string, std::string> parse_label(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw_usage("push: --label '{}' is not KEY=VALUE", text);
  const std::string key = text.substr(0, eq);
  for (char c : key)
    if (!std::isalnum((unsigned char)c) && c != '_' && c != '.' && c != '-')
      throw_usage("push: --label '{}': the key may hold letters, digits, _ . -", text);
  return {key, text.substr(eq + 1)};
}

std::string recording_id_of(const std::string& input) {
  struct stat st{};
  uint64_t h = fnv1a(input.data(), input.size());
  if (::stat(input.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    std::ifstream in(input, std::ios::binary);
    std::vector<char> buf(1 << 20);
    h = fnv1a("", 0);
    while (in.read(buf.data(), std::streamsize(buf.size())) || in.gcount() > 0)
      h = fnv1a(buf.data(), size_t(in.gcount()), h);
    return fmt::format("{:016x}-{}", h, st.st_size);
  }
  return fmt::format("{:016x}", h);
}

namespace {

// Per (aggregate, second of the recording's clock, hit arguments): count
// and period.
using PerSecond = std::map<std::tuple<uint32_t, uint64_t, uint32_t>, std::pair<uint64_t, uint64_t>>;

struct ReadRecording {
  analysis::Profile profile;
  PerSecond per_second;
  std::vector<Labels> args;
  uint64_t first_time = UINT64_MAX;
};

ReadRecording read_recording(const std::string& input, Symbolizer& symbolizer, const PushOptions& o) {
  ReadRecording r;
  HitArgs hits(o.sdt_args);
  analysis::ProfileOptions po;
  po.split_by_cpu = false;
  po.on_record = [&](const format::RecordView&, const format::Session& session) { hits.set_session(session); };
  po.on_kept_sample = [&](const format::Sample& s, uint32_t agg) {
    auto& slot = r.per_second[{agg, s.time / 1000000000, hits.of(s)}];
    ++slot.first;
    slot.second += s.period;
    if (s.time) r.first_time = std::min(r.first_time, s.time);
  };
  auto reader = analysis::open_input(input);
  r.profile = analysis::build_profile(*reader, symbolizer, po);
  r.args = hits.lists();
  return r;
}

}  // namespace

PushBatch collect_rows(const std::string& input, Symbolizer& symbolizer, const PushOptions& o) {
  ReadRecording rec = read_recording(input, symbolizer, o);
  const analysis::Profile& p = rec.profile;
  PushBatch b;
  b.recording_id = recording_id_of(input);
  b.lost_samples = p.lost_samples;
  b.args = std::move(rec.args);
  const int64_t now_s = clock_ns(CLOCK_REALTIME) / 1000000000;
  int64_t offset_s = (clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC)) / 1000000000;
  if (o.start_unix && rec.first_time != UINT64_MAX) offset_s = *o.start_unix - int64_t(rec.first_time / 1000000000);
  std::map<uint32_t, uint64_t> stack_of;  // aggregate -> stack id
  std::map<std::tuple<uint32_t, std::string, std::string, uint32_t, uint32_t, uint32_t, uint64_t, uint32_t>, size_t>
      row_of;
  for (const auto& [key, value] : rec.per_second) {
    const auto [agg, second, args] = key;
    const auto& ps = p.samples[agg];
    auto [it, added] = stack_of.emplace(agg, 0);
    if (added) {
      auto frames = encode_stack(p, ps.stack);
      it->second = stack_hash(frames);
      b.stacks.emplace(it->second, std::move(frames));
    }
    const int64_t wall = second ? int64_t(second) + offset_s : now_s;
    SampleRow r;
    r.bucket = uint32_t(std::max<int64_t>(0, wall) / o.bucket_seconds * o.bucket_seconds);
    const auto& ev = p.events[ps.event];
    r.event = ev.name, r.event_unit = std::string(ev.unit()), r.sample_type = ev.sample_type, r.attr_index = ev.attr_index;
    r.event_kind = format::kind_name(ev.kind);
    r.build_id = root_build_id(p, ps.stack);
    r.comm = std::string(p.str(ps.comm));
    r.pid = ps.pid, r.tid = ps.tid, r.cpu = ps.cpu, r.stack_id = it->second, r.args = args;
    r.count = value.first, r.period = value.second;
    b.samples += r.count;
    // Rows with one key merge here: the store keeps one row per key.
    auto k = std::make_tuple(r.bucket, r.event, r.comm, r.pid, r.tid, r.cpu, r.stack_id, r.args);
    auto [rit, fresh] = row_of.emplace(std::move(k), b.rows.size());
    if (fresh) {
      b.rows.push_back(std::move(r));
    } else {
      b.rows[rit->second].count += r.count;
      b.rows[rit->second].period += r.period;
    }
  }
  return b;
}

PushResult push_rows(const ClickHouse& ch, const PushBatch& b, const PushOptions& o) {
  PushResult res;
  res.recording_id = b.recording_id;
  res.lost_samples = b.lost_samples;
  const std::string db = ch.url().database;
  try {
    with_retry(o, [&] { create_schema(ch); });
  } catch (const StoreUnavailable& e) {
    throw StoreUnavailable(fmt::format("push: {} (after {} attempts); nothing stored", e.what(), o.attempts));
  } catch (const Error& e) {
    throw_runtime("push: cannot create the tables ({}); nothing stored", e.what());
  }
  // Stacks first: a sample row never names a stack the store lacks.
  RowBinary stacks;
  for (const auto& [id, frames] : b.stacks) stacks.u64(id), stacks.strings(frames);
  if (!b.stacks.empty())
    insert_with_retry(ch, "INSERT INTO " + db + ".sonde_stacks (stack_id, frames) FORMAT RowBinary", stacks.data(), o);
  res.stacks = b.stacks.size();
  res.bytes += stacks.data().size();
  const std::string sql = "INSERT INTO " + db + ".sonde_samples (" + kSampleColumns + ") FORMAT RowBinary";
  const size_t n = b.rows.size();
  const size_t batches = (n + o.batch_rows - 1) / o.batch_rows;
  for (size_t i = 0; i < n; i += o.batch_rows) {
    const size_t end = std::min(n, i + o.batch_rows);
    const std::string data = encode_rows(b, o, i, end);
    try {
      insert_with_retry(ch, sql, data, o);
    } catch (const StoreUnavailable& e) {
      throw StoreUnavailable(fmt::format("push: batch {} of {}: {} (after {} attempts); {} of {} rows stored; pushing "
                                         "again is safe",
                                         res.batches + 1, batches, e.what(), o.attempts, res.rows, n));
    } catch (const Error& e) {
      throw_runtime("push: batch {} of {} failed after {} attempts ({}); {} of {} rows ({} of {} samples) stored; "
                    "pushing again is safe",
                    res.batches + 1, batches, o.attempts, e.what(), res.rows, n, res.samples, b.samples);
    }
    res.bytes += data.size();
    for (size_t k = i; k < end; ++k) res.samples += b.rows[k].count;
    res.rows += end - i;
    ++res.batches;
  }
  RowBinary rec;
  rec.str(b.recording_id), rec.str(o.host), rec.str(o.service);
  rec.u32(uint32_t(clock_ns(CLOCK_REALTIME) / 1000000000)), rec.u64(res.rows), rec.u64(res.samples), rec.u64(b.lost_samples);
  insert_with_retry(ch,
                    "INSERT INTO " + db +
                        ".sonde_recordings (recording_id, host, service, pushed_at, rows, samples, lost_samples) FORMAT "
                        "RowBinary",
                    rec.data(), o);
  return res;
}

}  // namespace sonde::fleet
