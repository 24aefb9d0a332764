// Symbolizer micro-benchmarks: indexing an object (cold, and from its
// symbol index in the build-id cache) and per-frame
// lookups (warm) on the host's libc and on the sonde binary itself.
//   bench_symbol_lookup [--benchmark_filter=...]  (SONDE_BENCH_OBJECT=PATH adds one)
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "elf/elf_file.h"
#include "symbol/symbolizer.h"

namespace {

using namespace sonde;

std::string self_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

std::vector<std::string> objects() {
  std::vector<std::string> v = {"/lib/x86_64-linux-gnu/libc.so.6", self_path()};
  if (const char* e = getenv("SONDE_BENCH_OBJECT")) v.push_back(e);
  return v;
}

SymbolizerOptions opts() {
  SymbolizerOptions o;
  o.use_cache = false;
  o.use_debuginfod = false;
  return o;
}

// Random file offsets inside the object's executable PT_LOADs.
std::vector<uint64_t> text_offsets(const std::string& path, size_t n) {
  std::vector<uint64_t> out;
  auto f = ElfFile::open(path, nullptr);
  if (!f) return out;
  std::vector<LoadSegment> exec;
  for (const auto& l : f->load_segments())
    if (l.executable && l.filesz) exec.push_back(l);
  if (exec.empty()) return out;
  std::mt19937_64 rng(42);
  for (size_t i = 0; i < n; ++i) {
    const auto& l = exec[rng() % exec.size()];
    out.push_back(l.offset + rng() % l.filesz);
  }
  return out;
}

void BM_IndexObject(benchmark::State& state) {
  std::string path = objects()[static_cast<size_t>(state.range(0))];
  BuildId id = read_build_id(path).value_or(BuildId{});
  size_t syms = 0;
  for (auto _ : state) {
    Symbolizer s(opts());
    auto h = s.object(id, path);
    syms = s.info(h).symbol_count;
    benchmark::DoNotOptimize(h);
  }
  state.SetLabel(path + " (" + std::to_string(syms) + " symbols)");
}

// The same object with its symbol index in a build-id cache (written by the
// first, unmeasured, Symbolizer): what every later report pays.
void BM_IndexObjectFromCache(benchmark::State& state) {
  std::string path = objects()[static_cast<size_t>(state.range(0))];
  BuildId id = read_build_id(path).value_or(BuildId{});
  char dir[] = "/tmp/sonde-bench-cache.XXXXXX";
  if (!mkdtemp(dir)) {
    state.SkipWithError("no temporary folder");
    return;
  }
  SymbolizerOptions o = opts();
  o.use_cache = true;
  o.cache_root = dir;
  Symbolizer(o).object(id, path);
  size_t syms = 0;
  for (auto _ : state) {
    Symbolizer s(o);
    auto h = s.object(id, path);
    syms = s.info(h).symbol_count;
    benchmark::DoNotOptimize(h);
  }
  state.SetLabel(path + " (" + std::to_string(syms) + " symbols)");
  std::filesystem::remove_all(dir);
}

void BM_Lookup(benchmark::State& state) {
  std::string path = objects()[static_cast<size_t>(state.range(0))];
  BuildId id = read_build_id(path).value_or(BuildId{});
  Symbolizer s(opts());
  auto h = s.object(id, path);
  auto offs = text_offsets(path, 1 << 16);
  if (offs.empty()) {
    state.SkipWithError("no executable segment");
    return;
  }
  for (const auto off : offs) benchmark::DoNotOptimize(s.lookup(h, off));  // warm demangling
  size_t i = 0, resolved = 0;
  for (auto _ : state) {
    ResolvedSymbol r = s.lookup(h, offs[i++ & (offs.size() - 1)]);
    resolved += r.resolved();
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(path + " (" + std::to_string(100 * resolved / std::max<size_t>(1, i)) + "% resolved)");
}

void Objects(benchmark::internal::Benchmark* b) {
  for (size_t i = 0; i < objects().size(); ++i) b->Arg(static_cast<int64_t>(i));
}

BENCHMARK(BM_IndexObject)->Apply(Objects)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_IndexObjectFromCache)->Apply(Objects)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Lookup)->Apply(Objects);

}  // namespace

BENCHMARK_MAIN();
