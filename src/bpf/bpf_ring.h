// A BPF ring buffer map read record by record: libbpf's ring_buffer, its
// callback and context pointer, written once for every module that reads
// one (cfi's samples and requests, off-CPU's blocks, trace's strings).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

struct ring_buffer;

namespace sonde::bpf {

class BpfRing {
 public:
  using RecordFn = std::function<void(std::span<const uint8_t>)>;

  BpfRing() = default;
  ~BpfRing() { close(); }
  BpfRing(const BpfRing&) = delete;
  BpfRing& operator=(const BpfRing&) = delete;

  // Maps the ring buffer map `map_fd`; false (errno set) when libbpf cannot.
  bool open(int map_fd);
  void close();
  bool is_open() const { return ring_ != nullptr; }
  // Calls `on_record` with each record's bytes (valid during the call).
  void consume(const RecordFn& on_record);
  // Pollable: readable when the ring buffer has records; -1 when not open.
  int epoll_fd() const;

 private:
  ring_buffer* ring_ = nullptr;
  const RecordFn* on_record_ = nullptr;  // during consume
  static int callback(void* ctx, void* data, size_t size);
};

}  // namespace sonde::bpf
