#include "util/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <random>
#include <streambuf>
#include <vector>

#include "util/error.h"
#include "util/signal_cleanup.h"

namespace sonde {

// Buffers what a std::ostream writes and hands it to write_all; the first
// failure's errno is kept for commit()'s message.
class AtomicFile::StreamBuf : public std::streambuf {
 public:
  explicit StreamBuf(int fd) : fd_(fd), buffer_(1 << 16) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (sync() != 0) return traits_type::eof();
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    return c;
  }
  int sync() override {
    size_t n = static_cast<size_t>(pptr() - pbase());
    if (n == 0) return error_ ? -1 : 0;
    if (!error_ && !write_all(fd_, pbase(), n)) error_ = errno ? errno : EIO;
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return error_ ? -1 : 0;
  }

 private:
  int fd_;
  std::vector<char> buffer_;
  int error_ = 0;
};

namespace {

std::string folder_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

UniqueFd create_suffixed(const std::string& target, bool readable, std::string& temp) {
  temp = target + unique_temp_suffix();
  UniqueFd fd(::open(temp.c_str(), (readable ? O_RDWR : O_WRONLY) | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (!fd) throw_runtime("cannot create {}: {}", temp, errno_text(errno));
  return fd;
}

UniqueFd create_hidden(const std::string& target, std::string& temp) {
  std::string dir = folder_of(target);
  size_t slash = target.rfind('/');
  std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  std::string name = dir + "/." + base + ".sonde-XXXXXX";
  UniqueFd fd(::mkostemp(name.data(), O_CLOEXEC));
  if (!fd) throw_runtime("cannot create an output file in {}: {}", dir, errno_text(errno));
  temp = std::move(name);
  return fd;
}

// mkstemp makes 0600 files; an output gets the usual umask-based mode.
void give_umask_mode(int fd) {
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
}

}  // namespace

std::string unique_temp_suffix() {
  // pid + counter + random: unique across concurrent processes and threads.
  static std::atomic<uint64_t> counter{0};
  static const uint64_t salt = std::random_device{}();
  return fmt::format(".tmp.{}.{}.{:x}", ::getpid(), counter++, salt & 0xffffff);
}

AtomicFile::AtomicFile(std::string target, Options options)
    : target_(std::move(target)), temp_name_(options.temp_name) {
  fd_ = temp_name_ == TempName::Hidden ? create_hidden(target_, temp_)
                                       : create_suffixed(target_, options.readable, temp_);
  if (options.remove_on_signal) signal_slot_ = signal_cleanup::add(temp_);
}

AtomicFile::AtomicFile(AtomicFile&& o) noexcept
    : target_(std::move(o.target_)),
      temp_(std::move(o.temp_)),
      fd_(std::move(o.fd_)),
      temp_name_(o.temp_name_),
      signal_slot_(std::exchange(o.signal_slot_, -1)),
      committed_(std::exchange(o.committed_, true)),
      buf_(std::move(o.buf_)),
      stream_(std::move(o.stream_)) {}

AtomicFile& AtomicFile::operator=(AtomicFile&& o) noexcept {
  if (this == &o) return *this;
  remove_temp();
  target_ = std::move(o.target_);
  temp_ = std::move(o.temp_);
  fd_ = std::move(o.fd_);
  temp_name_ = o.temp_name_;
  signal_slot_ = std::exchange(o.signal_slot_, -1);
  committed_ = std::exchange(o.committed_, true);
  buf_ = std::move(o.buf_);
  stream_ = std::move(o.stream_);
  return *this;
}

AtomicFile::~AtomicFile() { remove_temp(); }

void AtomicFile::remove_temp() {
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
  signal_cleanup::remove(std::exchange(signal_slot_, -1));
  committed_ = true;
}

void AtomicFile::write(const void* data, size_t size) {
  if (!write_all(fd_.get(), data, size)) throw_runtime("cannot write {}: {}", temp_, errno_text(errno));
}

std::ostream& AtomicFile::stream() {
  if (!stream_) {
    buf_ = std::make_unique<StreamBuf>(fd_.get());
    stream_ = std::make_unique<std::ostream>(buf_.get());
  }
  return *stream_;
}

bool AtomicFile::try_commit() {
  if (stream_) {
    stream_->flush();
    if (!*stream_) throw_runtime("cannot write {}: {}", target_, errno_text(buf_->error() ? buf_->error() : EIO));
  }
  if (temp_name_ == TempName::Hidden) give_umask_mode(fd_.get());
  if (::rename(temp_.c_str(), target_.c_str()) != 0) return false;
  committed_ = true;
  signal_cleanup::remove(std::exchange(signal_slot_, -1));
  return true;
}

void AtomicFile::commit() {
  if (!try_commit()) throw_runtime("cannot rename {} to {}: {}", temp_, target_, errno_text(errno));
}

}  // namespace sonde
