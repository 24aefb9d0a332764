#include "format/file_mode_reader.h"

#include "util/error.h"

namespace sonde::perf {

std::unique_ptr<RecordReader> open_file_mode(std::unique_ptr<ByteSource>, const std::string& name) {
  throw_runtime("{} is a file-mode perf.data; sonde reads pipe-mode streams only for now", name);
}

}  // namespace sonde::perf
