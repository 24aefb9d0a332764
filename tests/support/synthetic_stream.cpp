#include "support/synthetic_stream.h"

#include <fcntl.h>

#include "format/perf_abi.h"
#include "util/error.h"

namespace sonde::test {

SyntheticStream::SyntheticStream(const std::string& path, uint64_t sample_type) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw_runtime("cannot create {}: {}", path, errno_text(errno));
  writer_ = std::make_unique<perf::StreamWriter>(fd);
  writer_->write_pipe_header();
  perf_event_attr a{};
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_type = sample_type;
  a.sample_id_all = 1;
  const uint64_t ids[] = {kEventId};
  writer_->write_attr(a, ids);
  writer_->write_features_end();
  writer_->write_event_update_name(kEventId, "cpu-clock");
}

}  // namespace sonde::test
