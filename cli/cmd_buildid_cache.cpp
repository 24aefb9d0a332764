// sonde buildid-cache: manage the perf-compatible build-id cache.
#include <cstdio>
#include <sys/stat.h>

#include "cache/buildid_cache.h"
#include "commands.h"
#include "symbol/index_builder.h"
#include "util/error.h"

namespace sonde::cli {

namespace {

struct BuildIdCacheArgs {
  std::vector<std::string> add;
  std::vector<std::string> remove;
  bool list = false;
  bool purge_missing = false;
  std::vector<std::string> index;
  bool index_all = false;
  bool verbose = false;
  std::string dir;
};

// --index BIN... and --all: symbol indexes built ahead of time, one line each.
int build_indexes(const BuildIdCache& cache, const BuildIdCacheArgs& a) {
  int rc = 0;
  auto one = [&](const std::string& path, std::optional<BuildId> id) {
    IndexedObject r = index_object(cache.root(), path, id);
    if (r.ok()) {
      std::printf("indexed %s %s (%zu symbols)\n", r.build_id.hex().c_str(), path.c_str(), r.symbols);
    } else {
      std::fprintf(stderr, "sonde buildid-cache: %s\n", r.error.c_str());
      rc = 1;
    }
  };
  for (const auto& path : a.index) one(path, std::nullopt);
  if (a.index_all) {
    // Every object entry (the kernel's and the vdso's have their own tables).
    for (const auto& e : cache.list())
      if (!e.path.empty() && e.path.front() == '/') one(e.path, e.build_id);
  }
  return rc;
}

int run_buildid_cache(const BuildIdCacheArgs& a) {
  int actions = !a.add.empty() + !a.remove.empty() + a.list + a.purge_missing + !a.index.empty() + a.index_all;
  if (actions == 0) throw_usage("buildid-cache: give one of --add, --remove, --list, --purge-missing, --index, --all");
  BuildIdCache cache(BuildIdCache::default_root(a.dir));
  int rc = 0;
  for (const auto& path : a.add) {
    bool ok = true;
    try {
      cache.add(path);
    } catch (const Error& e) {
      std::fprintf(stderr, "sonde buildid-cache: %s\n", e.what());
      ok = false, rc = 1;
    }
    // -v: perf's line per file.
    if (a.verbose) {
      std::optional<BuildId> id = read_build_id(path);
      std::fprintf(stderr, "Adding %s %s: %s\n", id ? id->hex().c_str() : "(no build-id)", path.c_str(),
                   ok ? "Ok" : "FAIL");
    }
  }
  for (const auto& arg : a.remove) {
    // A build-id, or the path of an ELF file whose build-id to remove.
    std::optional<BuildId> id = BuildId::from_hex(arg);
    struct stat st;
    if (!id && stat(arg.c_str(), &st) == 0) id = read_build_id(arg);
    if (!id) throw_usage("buildid-cache: --remove {}: not a build-id (2-40 hex digits) nor an ELF file with one", arg);
    if (!cache.remove(*id)) {
      std::fprintf(stderr, "sonde buildid-cache: %s is not in %s\n", id->hex().c_str(), cache.root().c_str());
      rc = 1;
    }
  }
  if (a.purge_missing) {
    for (const auto& e : cache.purge_missing())
      std::printf("purged %s %s\n", e.build_id.hex().c_str(), e.path.c_str());
  }
  if (!a.index.empty() || a.index_all) rc |= build_indexes(cache, a);
  if (a.list) {
    std::vector<std::string> skipped;
    for (const auto& e : cache.list(&skipped)) std::printf("%s %s\n", e.build_id.hex().c_str(), e.path.c_str());
    for (const auto& s : skipped) std::fprintf(stderr, "sonde buildid-cache: skipped malformed entry %s\n", s.c_str());
  }
  return rc;
}

}  // namespace

void register_buildid_cache(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<BuildIdCacheArgs>();
  auto* cmd = app.add_subcommand("buildid-cache", "Manage the build-id cache (perf-compatible, default ~/.debug)");
  cmd->add_option("-a,--add", args->add, "ELF files to add")->expected(1, -1);
  cmd->add_option("-r,--remove", args->remove, "Build-ids (or files) to remove")->expected(1, -1);
  cmd->add_flag("-l,--list", args->list, "List cached build-ids and their original paths");
  cmd->add_flag("--purge-missing", args->purge_missing, "Remove entries whose original file is gone");
  cmd->add_option("--index", args->index, "ELF files whose symbol index to build into the cache")->expected(1, -1);
  cmd->add_flag("--all", args->index_all, "Build the symbol index of every object in the cache");
  cmd->add_flag("-v,--verbose", args->verbose, "Say what is added, as perf: \"Adding BUILD-ID PATH: Ok\"");
  cmd->add_option("--buildid-dir", args->dir, "Cache root (default: $SONDE_BUILDID_DIR, else $HOME/.debug)");
  cmd->callback([args, &exit_code] { exit_code = run_buildid_cache(*args); });
}

}  // namespace sonde::cli
