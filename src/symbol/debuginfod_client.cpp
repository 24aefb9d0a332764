#include "symbol/debuginfod_client.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "symbol/debuginfod_library.h"
#include "util/error.h"

namespace sonde {

DebuginfodClient::DebuginfodClient(bool enabled, NoteList& notes) : notes_(notes) {
  const char* urls = getenv("DEBUGINFOD_URLS");
  enabled_ = enabled && urls && *urls;
  if (enabled_) urls_ = urls;
}

DebuginfodClient::~DebuginfodClient() {
  if (client_) lib_->end(client_);
}

debuginfod_client* DebuginfodClient::client() {
  if (!started_ && enabled_) {
    started_ = true;
    const char* why = nullptr;
    lib_ = debuginfod_library(&why);
    if (!lib_) {
      notes_.add(fmt::format("debuginfod: {}; skipped", why));
      return nullptr;
    }
    client_ = lib_->begin();
    if (!client_) notes_.add("debuginfod: cannot start the client; skipped");
  }
  return dead_ ? nullptr : client_;
}

std::unique_ptr<ElfFile> DebuginfodClient::find(const BuildId& id, bool executable) {
  if (id.empty() || missing_.count(id)) return nullptr;
  debuginfod_client* c = client();
  if (!c) return nullptr;
  char* path = nullptr;
  int fd = executable ? lib_->find_executable(c, id.bytes.data(), id.size, &path)
                      : lib_->find_debuginfo(c, id.bytes.data(), id.size, &path);
  if (fd < 0) {
    free(path);
    if (fd == -ENOENT) {
      if (executable) missing_.insert(id);
      return nullptr;
    }
    dead_ = true;
    notes_.add(fmt::format("debuginfod ({}) failed: {}; not asked again in this run", urls_, errno_text(-fd)));
    return nullptr;
  }
  ::close(fd);
  std::string p = path;
  free(path);
  std::string why;
  auto f = ElfFile::open(p, &why);
  if (!f) {
    notes_.add(fmt::format("debuginfod: {}", why));
    return nullptr;
  }
  if (!(f->build_id() == id)) {
    notes_.add(fmt::format("debuginfod: {} has build-id {}, expected {}; ignored", p, f->build_id().hex(), id.hex()));
    return nullptr;
  }
  return f;
}

}  // namespace sonde
