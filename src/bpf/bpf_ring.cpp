#include "bpf/bpf_ring.h"

#include <bpf/libbpf.h>

namespace sonde::bpf {

bool BpfRing::open(int map_fd) {
  close();
  ring_ = ring_buffer__new(map_fd, &BpfRing::callback, this, nullptr);
  return ring_ != nullptr;
}

void BpfRing::close() {
  if (ring_) ring_buffer__free(ring_);
  ring_ = nullptr;
}

int BpfRing::callback(void* ctx, void* data, size_t size) {
  auto* self = static_cast<BpfRing*>(ctx);
  if (self->on_record_) (*self->on_record_)({static_cast<const uint8_t*>(data), size});
  return 0;
}

void BpfRing::consume(const RecordFn& on_record) {
  if (!ring_) return;
  on_record_ = &on_record;
  ring_buffer__consume(ring_);
  on_record_ = nullptr;
}

int BpfRing::epoll_fd() const { return ring_ ? ring_buffer__epoll_fd(ring_) : -1; }

}  // namespace sonde::bpf
