// An open-addressing hash index from a small key to a dense uint32_t id, for
// hot interning paths (one lookup per frame of every sample). Linear probing
// over a power-of-two table of inline slots: no node allocation per entry and
// one cache line per probe, which std::unordered_map cannot give.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace sonde {

template <typename Key, typename Hash>
class FlatIndex {
 public:
  explicit FlatIndex(size_t initial_capacity = 1024) { rehash(initial_capacity); }

  // The id stored for `key`, or `id_if_new` stored now; second: inserted.
  std::pair<uint32_t, bool> find_or_insert(const Key& key, uint32_t id_if_new) {
    auto [id, fresh] = slot(key, id_if_new);
    return {*id, fresh};
  }

  // The same, as the stored id itself, for a caller that decides the id
  // after the lookup (valid until the next insertion).
  std::pair<uint32_t*, bool> slot(const Key& key, uint32_t id_if_new) {
    if ((size_ + 1) * 4 > slots_.size() * 3) rehash(slots_.size() * 2);
    size_t i = Hash()(key) & mask_;
    for (;;) {
      Slot& s = slots_[i];
      if (!s.used) {
        s.key = key;
        s.id = id_if_new;
        s.used = true;
        ++size_;
        return {&s.id, true};
      }
      if (s.key == key) return {&s.id, false};
      i = (i + 1) & mask_;
    }
  }

  size_t size() const { return size_; }
  // Forgets every key and keeps the table's capacity (no allocation).
  void clear() {
    for (Slot& s : slots_) s.used = false;
    size_ = 0;
  }

 private:
  struct Slot {
    Key key{};
    uint32_t id = 0;
    bool used = false;
  };

  void rehash(size_t capacity) {
    size_t cap = 16;
    while (cap < capacity) cap <<= 1;
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    size_ = 0;
    for (const Slot& s : old)
      if (s.used) find_or_insert(s.key, s.id);
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

// A strong 64-bit mix (splitmix64's finalizer): keys here are addresses and
// packed ids whose low bits alone would cluster.
inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

}  // namespace sonde
