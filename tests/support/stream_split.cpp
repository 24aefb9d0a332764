#include "stream_split.h"

#include <cstdio>
#include <memory>

#include "format/perf_abi.h"
#include "format/sample.h"
#include "format/session.h"
#include "format/stream_reader.h"
#include "util/error.h"

namespace sonde::test {

using namespace sonde::format;

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

void put(std::FILE* f, const RecordView& rec) {
  std::fwrite(rec.bytes.data(), 1, rec.bytes.size(), f);
  if (!rec.trailing.empty()) std::fwrite(rec.trailing.data(), 1, rec.trailing.size(), f);
}

}  // namespace

std::vector<uint64_t> split_into_directory(const std::string& stream, const std::string& dir, unsigned streams,
                                           SplitBy by) {
  std::vector<File> files;
  std::vector<uint64_t> counts(streams + 1);
  for (unsigned i = 0; i <= streams; ++i) {
    const std::string path = dir + (i == 0 ? "/data" : "/data." + std::to_string(i - 1));
    files.emplace_back(std::fopen(path.c_str(), "wb"));
    if (!files.back()) throw_runtime("cannot create {}", path);
    const PipeHeader h{kMagic, kPipeHeaderSize};
    std::fwrite(&h, sizeof h, 1, files.back().get());
  }
  auto reader = open_recording(stream);
  Session session;
  Sample sample;
  RecordView rec;
  bool init_done = false;
  uint64_t turn = 0;
  while (reader->next(rec)) {
    const uint32_t type = rec.header.type;
    const bool header = session.observe(rec) && type != kFinishedInit && !init_done;
    if (header || type == kFinishedRound) {
      for (unsigned i = 0; i <= streams; ++i) put(files[i].get(), rec), ++counts[i];
      continue;
    }
    if (type == kFinishedInit) init_done = true;
    size_t to = 0;
    if (init_done && type < kHeaderAttr) {
      uint32_t cpu = 0;
      SampleId sid;
      if (type == kSample && session.decode_sample(rec, sample)) cpu = sample.cpu;
      else if (session.decode_sample_id(rec, sid)) cpu = sid.cpu;
      to = 1 + (by == SplitBy::kCpu ? cpu : turn++) % streams;
    }
    put(files[to].get(), rec);
    ++counts[to];
  }
  if (reader->truncated_bytes() || !reader->error().empty()) throw_runtime("{} did not read whole", stream);
  return counts;
}

}  // namespace sonde::test
