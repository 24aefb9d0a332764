// Reads a recording back for the recorder's tests: every record through
// format::open_recording + Session, with the facts the tests check.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sonde::test {

struct MappingFact {
  uint32_t pid = 0;
  uint16_t misc = 0;
  uint32_t prot = 0;
  std::string filename;
  std::string build_id;  // hex, "" for the inode form
};

struct SampleFact {
  uint32_t pid = 0, tid = 0, cpu = 0;
  uint64_t ip = 0;
  std::string event;
  size_t callchain = 0;
  size_t raw = 0;
  uint16_t cpumode = 0;
  uint64_t time = 0;
  size_t stack_user = 0;      // PERF_SAMPLE_STACK_USER bytes
  uint64_t stack_dyn_size = 0;
};

struct RecordingFacts {
  bool opened = false;
  std::string open_error;
  std::vector<uint32_t> types;  // record types in stream order
  std::vector<uint64_t> attr_flags;  // the u64 flag word of each attr
  std::vector<uint64_t> sample_types;
  std::vector<std::string> event_names;
  std::vector<MappingFact> mmap2;
  std::vector<SampleFact> samples;
  size_t bad_samples = 0;
  std::string first_bad;
  uint64_t lost = 0;          // the LOST records' sum
  uint64_t lost_samples = 0;  // the LOST_SAMPLES records' sum
  size_t comms = 0;
  std::vector<uint32_t> comm_pids;
  uint64_t truncated_bytes = 0;
  std::string reader_error;
  size_t tracing_data_bytes = 0;

  size_t samples_of_pid(uint32_t pid) const;
};

RecordingFacts read_recording(const std::string& path);

}  // namespace sonde::test
