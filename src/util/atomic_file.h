// An output file that appears whole or not at all: written under a temporary
// name in the target's folder, renamed onto the target by commit(), removed
// by the destructor when not committed (an exception, an early return) and,
// when asked, when the process is killed by SIGINT, SIGTERM or SIGHUP. A
// concurrent reader never sees a half-written file, and a failed or
// interrupted command leaves nothing behind.
#pragma once

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "util/fd.h"

namespace sonde {

class AtomicFile {
 public:
  enum class TempName {
    // TARGET.tmp.PID.N.SALT, mode 0644: cache entries and small state files
    // (a cleaner can match "*.tmp.*").
    Suffix,
    // DIR/.BASE.sonde-XXXXXX (mkstemp), 0600 while written and the umask's
    // mode once committed: user-visible outputs (hidden from ls meanwhile).
    Hidden,
  };
  struct Options {
    TempName temp_name = TempName::Suffix;
    bool readable = false;          // opened read-write: the caller may read it back
    bool remove_on_signal = false;  // also removed if SIGINT/SIGTERM/SIGHUP kills the process
  };

  // Creates the temporary file. Throws sonde::Error (runtime):
  // "cannot create TEMP: ..." (Suffix) or "cannot create an output file in
  // DIR: ..." (Hidden).
  explicit AtomicFile(std::string target, Options options);
  explicit AtomicFile(std::string target) : AtomicFile(std::move(target), Options{}) {}
  AtomicFile(AtomicFile&&) noexcept;
  AtomicFile& operator=(AtomicFile&&) noexcept;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  // Valid until destruction, also after commit().
  int fd() const { return fd_.get(); }
  const std::string& target() const { return target_; }
  const std::string& temp_path() const { return temp_; }
  bool committed() const { return committed_; }

  // Writes all of `data` at the file's position. Throws "cannot write TEMP: ...".
  void write(const void* data, size_t size);
  void write(std::string_view data) { write(data.data(), data.size()); }

  // A buffered stream over fd() (64 KiB), for writers that take an
  // std::ostream; flushed by commit().
  std::ostream& stream();

  // Flushes stream(), then renames the file onto the target. false with
  // errno set if the rename failed (the temporary file stays until
  // destruction); throws "cannot write TARGET: ..." if the stream failed.
  bool try_commit();
  // try_commit, throwing "cannot rename TEMP to TARGET: ..." on failure.
  void commit();

 private:
  class StreamBuf;
  void remove_temp();

  std::string target_, temp_;
  UniqueFd fd_;
  TempName temp_name_ = TempName::Suffix;
  int signal_slot_ = -1;  // in the signal handler's list, or -1
  bool committed_ = false;
  std::unique_ptr<StreamBuf> buf_;
  std::unique_ptr<std::ostream> stream_;
};

// ".tmp.PID.N.SALT", unique across processes and threads: the suffix of
// TempName::Suffix names, for callers that place a link (not a written file)
// under a temporary name before renaming it.
std::string unique_temp_suffix();

}  // namespace sonde
