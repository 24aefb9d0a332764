#include "record/file_mode_record.h"

#include <unistd.h>

#include "format/file_mode_writer.h"
#include "format/stream_reader.h"

namespace sonde::record {

RecordSummary record_file_mode(RecordOptions options) {
  if (options.output == "-" || options.output_fd >= 0 || options.threads) return record(options);
  const std::string output = options.output;
  options.output = output + ".stream";
  struct Unlink {
    std::string path;
    ~Unlink() { ::unlink(path.c_str()); }
  } stream{options.output};
  RecordSummary summary = record(options);
  auto reader = format::open_recording(options.output);
  format::write_file_mode(*reader, output);
  return summary;
}

}  // namespace sonde::record
