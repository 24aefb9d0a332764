// The drain path must not allocate per sample: count operator new calls
// (replaced for this test binary) over a short and a long recording of the
// same workload; the difference must not grow with the number of samples.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "record/record_test_util.h"
#include "record/recorder.h"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<uint64_t> g_allocs{0};
}  // namespace

// GCC 12 flags free() in a replaced operator delete as mismatched, although
// the replaced operator new above it is malloc-based.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocs.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

using namespace sonde::test;

namespace {

struct RecordRun {
  uint64_t allocs = 0, samples = 0;
};

RecordRun record_for(const std::string& fixture, const std::string& out, const char* seconds, int zstd_level = 0) {
  sonde::record::RecordOptions o;
  o.compression_level = zstd_level;
  o.output = out;
  o.quiet = true;
  o.freq = 10000;
  o.callchain = true;
  o.command = {fixture, seconds};
  g_allocs = 0;
  g_counting = true;
  auto s = sonde::record::record(o);
  g_counting = false;
  return {g_allocs.load(), s.samples};
}

void expect_no_allocation_per_sample(int zstd_level) {
  TempDir dir;
  std::string fixture = dir / "hot_loop";
  ASSERT_TRUE(compile_fixture("hot_loop.c", fixture));
  RecordRun shortr = record_for(fixture, dir / "s.data", "0.1", zstd_level);
  RecordRun longr = record_for(fixture, dir / "l.data", "0.6", zstd_level);
  ASSERT_GT(longr.samples, shortr.samples + 1000) << shortr.samples << " vs " << longr.samples;
  std::printf("allocations: %llu for %llu samples, %llu for %llu samples\n", (unsigned long long)shortr.allocs,
              (unsigned long long)shortr.samples, (unsigned long long)longr.allocs, (unsigned long long)longr.samples);
  int64_t extra = static_cast<int64_t>(longr.allocs) - static_cast<int64_t>(shortr.allocs);
  // Start-up allocations are the same in both runs; a few more passes may
  // allocate nothing at all. One allocation per 100 extra samples would
  // already fail.
  EXPECT_LT(extra, static_cast<int64_t>((longr.samples - shortr.samples) / 100))
      << "short: " << shortr.allocs << " allocs / " << shortr.samples << " samples, long: " << longr.allocs
      << " allocs / " << longr.samples << " samples";
}

TEST(RecordAlloc, DrainingDoesNotAllocatePerSample) { expect_no_allocation_per_sample(0); }

// -z: records are staged, then packed into the output buffer; both are
// reserved once.
TEST(RecordAlloc, CompressingDoesNotAllocatePerSample) { expect_no_allocation_per_sample(1); }

}  // namespace
