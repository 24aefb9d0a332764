#include "record/recording_reader.h"

#include <cstring>

#include "elf/build_id.h"
#include "format/perf_abi.h"
#include "format/session.h"
#include "format/stream_reader.h"
#include "util/error.h"

namespace sonde::test {

size_t RecordingFacts::samples_of_pid(uint32_t pid) const {
  size_t n = 0;
  for (const auto& s : samples) n += s.pid == pid;
  return n;
}

RecordingFacts read_recording(const std::string& path) {
  RecordingFacts f;
  std::unique_ptr<format::RecordReader> reader;
  try {
    reader = format::open_recording(path);
  } catch (const Error& e) {
    f.open_error = e.what();
    return f;
  }
  f.opened = true;
  format::Session session;
  format::RecordView rec;
  while (reader->next(rec)) {
    f.types.push_back(rec.header.type);
    if (rec.header.type == format::kHeaderAttr) {
      perf_event_attr a{};
      std::memcpy(&a, rec.bytes.data() + 8, std::min(sizeof a, rec.bytes.size() - 8));
      uint64_t flags = 0;
      std::memcpy(&flags, rec.bytes.data() + 8 + 40, sizeof flags);
      f.attr_flags.push_back(flags);
      f.sample_types.push_back(a.sample_type);
    }
    if (session.observe(rec)) continue;
    switch (rec.header.type) {
      case format::kSample: {
        format::Sample s;
        std::string why;
        if (!session.decode_sample(rec, s, &why)) {
          if (f.bad_samples++ == 0) f.first_bad = why;
          break;
        }
        SampleFact sf;
        sf.pid = s.pid;
        sf.tid = s.tid;
        sf.cpu = s.cpu;
        sf.ip = s.ip;
        sf.event = s.event ? s.event->name : "";
        sf.callchain = s.callchain_size();
        sf.raw = s.raw.size();
        sf.cpumode = s.cpumode();
        sf.time = s.time;
        sf.stack_user = s.stack_user.size();
        sf.stack_dyn_size = s.stack_dyn_size;
        f.samples.push_back(sf);
        break;
      }
      case format::kMmap2: {
        format::Mmap2Fixed m;
        if (rec.bytes.size() < sizeof m) break;
        std::memcpy(&m, rec.bytes.data(), sizeof m);
        MappingFact mf;
        mf.pid = m.pid;
        mf.misc = m.header.misc;
        mf.prot = m.prot;
        const char* name = reinterpret_cast<const char*>(rec.bytes.data() + sizeof m);
        mf.filename.assign(name, strnlen(name, rec.bytes.size() - sizeof m));
        if (m.header.misc & format::kMiscMmapBuildId)
          mf.build_id = BuildId::from_bytes({m.bid.build_id, std::min<size_t>(m.bid.build_id_size, 20)}).hex();
        f.mmap2.push_back(mf);
        break;
      }
      case format::kLostSamples: {
        format::LostSamples l;
        if (rec.bytes.size() < sizeof l) break;
        std::memcpy(&l, rec.bytes.data(), sizeof l);
        f.lost_samples += l.lost;
        break;
      }
      case format::kComm: {
        uint32_t pid = 0;
        if (rec.bytes.size() < 12) break;
        std::memcpy(&pid, rec.bytes.data() + 8, 4);
        f.comm_pids.push_back(pid);
        ++f.comms;
        break;
      }
      case format::kLost: {
        format::Lost l;
        std::memcpy(&l, rec.bytes.data(), sizeof l);
        f.lost += l.lost;
        break;
      }
      default:
        break;
    }
  }
  for (const auto& ev : session.events()) f.event_names.push_back(ev.name);
  f.tracing_data_bytes = session.tracing_data().size();
  f.truncated_bytes = reader->truncated_bytes();
  f.reader_error = reader->error();
  return f;
}

}  // namespace sonde::test
