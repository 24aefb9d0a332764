// The regression corpus (tests/corpus/files): each hostile input that once
// crashed sonde, ballooned its memory or gave a wrong answer, with the exact
// outcome it must have now. Recordings are read by the real `sonde` binary,
// from the file and through a pipe, and every run is also held to the rule of
// docs/architecture.md: memory proportional to the input (peak RSS of a few
// tens of MB for these few-KiB files), never a signal, and a failure is
// exactly one `sonde: ` line with exit status 1.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "cache/buildid_cache.h"
#include "format/perf_abi.h"
#include "format/record_builder.h"
#include "format/records.h"
#include "jit/jitdump.h"
#include "probe/sdt_args.h"
#include "support/child_usage.h"
#include "support/synthetic_stream.h"
#include "support/test_support.h"
#include "symbol/kallsyms_index.h"
#include "symbol/symbol_index.h"
#include "symbol/symbolizer.h"
#include "util/fs.h"

namespace sonde::test {
namespace {

std::string corpus(const std::string& name) { return std::string(SONDE_CORPUS_DIR) + "/" + name; }

std::string replace_all(std::string s, const std::string& what, const std::string& with) {
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size()))
    s.replace(at, what.size(), with);
  return s;
}

// What a recording in the corpus must make `sonde ARGS FILE` do. `err` and
// `out` are exact; "{file}" in them is the input's name as sonde says it.
struct RecordingCase {
  std::string file;
  std::vector<std::string> args;
  int exit_code;
  std::string err;
  std::string out;
};

const std::vector<RecordingCase>& recording_cases() {
  static const std::vector<RecordingCase> cases = {
      // F1: a __data_loc field at offset 4294967295 of an 8-byte RAW payload
      // wrapped the 32-bit bounds check and read 4 GiB past it (SIGSEGV).
      {"f1_data_loc_offset_wraps.data", {"script"}, 0, "",
       ":      42/42      [000] 0.000001:          1 sonde:hostile: s=? n=7\n"
       "\t          401000 [unknown] ([unknown])\n\n"},
      // F2: 32 bytes whose TRACING_DATA claims a 0xffffffff-byte blob made the
      // reader allocate 4 GiB before reading a byte. Now: a truncated tail.
      {"f2_tracing_data_claims_4g.data", {"script"}, 0,
       "sonde script: the recording ends with an incomplete record; ignored its last 16 bytes\n", ""},
      // F2: the same through AUXTRACE's u64 size (4 GiB of trace data claimed).
      {"f2_auxtrace_claims_4g.data", {"script"}, 0,
       "sonde script: the recording ends with an incomplete record; ignored its last 48 bytes\n", ""},
      // F3: 64 attr entries sharing one 8 KiB id list would become 64 copies
      // (entries x ids from a 17 KiB file).
      {"f3_attrs_share_one_id_list.data", {"script"}, 1,
       "sonde: {file}: corrupt perf.data: the id lists of attributes 0 to 2 add up to 24576 bytes, more than the "
       "file's 17512 bytes (entries share one list)\n",
       ""},
  };
  return cases;
}

void expect_bounded(const ChildUsage& r, const std::string& what) {
  EXPECT_EQ(r.signal, 0) << what << " died of signal " << r.signal << "\n" << r.err;
  EXPECT_LE(r.max_rss_kib, small_input_rss_limit_kib()) << what << ": peak RSS " << r.max_rss_kib << " KiB";
}

std::vector<std::string> with(std::vector<std::string> args, const std::string& input) {
  args.insert(args.begin(), sonde_bin());
  args.push_back("-i");
  args.push_back(input);
  return args;
}

TEST(Corpus, EachRecordingHasItsExactOutcomeFromAFileAndFromAPipe) {
  for (const auto& c : recording_cases()) {
    const std::string path = corpus(c.file);
    for (bool pipe : {false, true}) {
      const bool file_mode = c.file.starts_with("f3_");
      if (pipe && file_mode) continue;  // file mode needs random access: its own error, tested elsewhere
      ChildUsage r = pipe ? run_measured(with(c.args, "-"), {ChildInput::kPipe, path})
                          : run_measured(with(c.args, path));
      const std::string what = c.file + (pipe ? " (pipe)" : " (file)");
      expect_bounded(r, what);
      EXPECT_EQ(r.exit_code, c.exit_code) << what << "\n" << r.err;
      EXPECT_EQ(r.err, replace_all(c.err, "{file}", pipe ? "standard input" : path)) << what;
      EXPECT_EQ(r.out, c.out) << what;
    }
  }
}

// Directories of streams (docs/format.md, "Directory recordings"): the merge
// of files that lie, each with its exact outcome. A directory added to files/
// without an expectation here fails.
TEST(Corpus, EachDirectoryHasItsExactOutcome) {
  const std::string two_samples =
      ":      42/42      [000] 0.000001:          1 cpu-clock:\n\t          402000 [unknown] ([unknown])\n\n"
      ":      42/42      [000] 0.000002:          1 cpu-clock:\n\t          401000 [unknown] ([unknown])\n\n";
  const std::vector<RecordingCase> cases = {
      // data.0's last record claims 64 KiB with 16 bytes left: both samples,
      // in time order across the files, and the cut tail said once.
      {"d1_stream_claims_64k.dir", {"script"}, 0,
       "sonde script: the recording ends with an incomplete record; ignored its last 16 bytes\n", two_samples},
      // One id, two attrs: no guess which one the samples mean.
      {"d2_attr_differs.dir", {"script"}, 1,
       "sonde: {file}/data.0: the attr of id 1 differs from the one an earlier file of the directory gave it\n", ""},
      // A record of size 0 in data.1: what came before it, then the file named.
      {"d3_record_size_zero.dir", {"script"}, 1,
       "sonde: {file}: {file}/data.1: bad record header size 0 at offset 0xa0\n", two_samples},
  };
  std::set<std::string> expected;
  for (const auto& c : cases) {
    expected.insert(c.file);
    const std::string path = corpus(c.file);
    ChildUsage r = run_measured(with(c.args, path));
    expect_bounded(r, c.file);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.file << "\n" << r.err;
    EXPECT_EQ(r.err, replace_all(c.err, "{file}", path)) << c.file;
    EXPECT_EQ(r.out, c.out) << c.file;
  }
  for (const auto& e : std::filesystem::directory_iterator(SONDE_CORPUS_DIR))
    if (e.is_directory()) {
      EXPECT_TRUE(expected.count(e.path().filename())) << e.path() << " has no expectation";
    }
}

// Every recording in files/ is read by script, report and script -D (every
// record's text, fuzz_recording's second half), and each outcome
// is a clean one. A file added without an expectation above fails here.
TEST(Corpus, EveryRecordingEndsCleanlyAndHasAnExpectation) {
  std::set<std::string> expected;
  for (const auto& c : recording_cases()) expected.insert(c.file);
  expected.insert("f5_placeholders_in_event_name.data");  // its own test below
  size_t seen = 0;
  for (const auto& e : std::filesystem::directory_iterator(SONDE_CORPUS_DIR)) {
    const std::string name = e.path().filename();
    if (!name.ends_with(".data")) continue;
    ++seen;
    EXPECT_TRUE(expected.count(name)) << name << " has no expectation in corpus_test.cpp";
    for (std::string cmd : {"script", "report", "script -D"}) {
      ChildUsage r = cmd == "script -D" ? run_measured({sonde_bin(), "script", "-D", "-i", e.path().string()})
                                        : run_measured({sonde_bin(), cmd, "-i", e.path().string()});
      const std::string what = cmd + " " + name;
      expect_bounded(r, what);
      EXPECT_EQ(unclean_outcome(r), "") << what;
    }
  }
  EXPECT_EQ(seen, expected.size());
}

// F5: "@DATA@" in an event name (EVENT_UPDATE) was found again after the
// title was substituted, so the page's data landed in the <title> and the
// flame graph was empty; "@SCRIPT@" made convert fail. Placeholders in
// recorded text must come out as text.
TEST(Corpus, PlaceholderTextInAnEventNameLeavesTheHtmlPageIntact) {
  TempDir t;
  const std::string name = "@DATA@ @SCRIPT@ @TITLE@ </script>";
  ChildUsage r = run_measured({sonde_bin(), "convert", "--to", "html", "-o", t / "page.html", "-i",
                               corpus("f5_placeholders_in_event_name.data")});
  expect_bounded(r, "convert --to html");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::ifstream in(t / "page.html");
  std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string open = "<script type=\"application/json\" id=\"sonde-data\">";
  ASSERT_EQ(count_lines_with(page, open), 1u);
  size_t begin = page.find(open) + open.size();
  size_t end = page.find("</script>", begin);
  ASSERT_NE(end, std::string::npos);
  auto data = nlohmann::json::parse(page.substr(begin, end - begin));  // throws (fails) if the data is broken
  ASSERT_EQ(data["events"].size(), 1u);
  EXPECT_EQ(data["events"][0]["name"], name);
  EXPECT_EQ(data["nodes"], 2);  // all, and the one unresolved frame
  EXPECT_EQ(page.find("<script>@SCRIPT@"), std::string::npos) << "the script placeholder was left in the page";
  EXPECT_NE(page.find("<script>// sonde's analysis page, 1/5"), std::string::npos) << "no page script";
  EXPECT_NE(page.find("(@DATA@ @SCRIPT@ @TITLE@ &lt;/script&gt;)</title>"), std::string::npos) << "title";
  EXPECT_NE(page.find("(@DATA@ @SCRIPT@ @TITLE@ &lt;/script&gt;)</h1>"), std::string::npos) << "heading";
}

// F4: SDT argument specs whose values do not fit in 64 bits (or in a memory
// operand) were computed with signed overflow; each now has a reason.
TEST(Corpus, SdtArgumentsThatDoNotFitGetAReason) {
  std::ifstream in(corpus("f4_sdt_args_overflow.tsv"));
  std::string line;
  size_t cases = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t t1 = line.find('\t'), t2 = line.find('\t', t1 + 1);
    ASSERT_NE(t2, std::string::npos) << line;
    const std::string machine = line.substr(0, t1), spec = line.substr(t1 + 1, t2 - t1 - 1), want = line.substr(t2 + 1);
    auto p = probe::parse_sdt_args(spec, machine == "aarch64" ? probe::kMachineAarch64 : probe::kMachineX86_64);
    if (want.starts_with("error: ")) {
      EXPECT_EQ(p.error, want.substr(7)) << spec;
    } else {
      ASSERT_TRUE(p.ok()) << spec << ": " << p.error;
      EXPECT_EQ("disp: " + std::to_string(p.args.at(0).disp), want) << spec;
    }
    ++cases;
  }
  EXPECT_EQ(cases, 7u);
}

// F7: a kallsyms index with a count of 0 was taken as valid: every kernel
// symbol came out blank (and memcpy got a null pointer). It is ignored, the
// names come from the cached text, and a good index replaces it.
TEST(Corpus, AZeroCountKallsymsIndexIsIgnoredAndRewritten) {
  TempDir t;
  const BuildId kernel = *BuildId::from_hex("fedcba9876543210fedcba9876543210fedcba98");
  BuildIdCache cache(t / "cache");
  auto e = cache.add_kallsyms_text(kernel, "ffffffff81000000 T _stext\nffffffff81000100 t second\n");
  struct stat st {};
  ASSERT_EQ(::stat((e.dir + "/kallsyms").c_str(), &st), 0);
  auto idx = read_small_file(corpus("f7_kallsyms_index_zero_count.idx"));
  ASSERT_TRUE(idx && idx->size() == 64);
  const uint64_t size = static_cast<uint64_t>(st.st_size), inode = st.st_ino;
  std::memcpy(idx->data() + 16, &size, 8);
  std::memcpy(idx->data() + 24, &inode, 8);
  const std::string idx_path = e.dir + "/" + kKallsymsIndexName;
  write_file_atomic(idx_path, *idx);

  SymbolizerOptions o;
  o.cache_root = t / "cache";
  Symbolizer s(o);
  ObjectHandle h = s.kernel(kernel);
  EXPECT_EQ(s.lookup(h, 0xffffffff81000010).name, "_stext");
  EXPECT_EQ(s.lookup(h, 0xffffffff81000110).name, "second");
  EXPECT_EQ(s.info(h).symbol_count, 2u);
  auto rewritten = read_small_file(idx_path);
  ASSERT_TRUE(rewritten);
  EXPECT_GT(rewritten->size(), 64u) << "the zero-count index was kept";
}

}  // namespace
}  // namespace sonde::test

namespace sonde::test {
namespace {

// A recording of pid 4242 that announces `dump` (an r-x mmap of it) and has
// one sample at 0x10004, where the corpus dumps load their first function.
void write_jit_recording(const std::string& path, const std::string& dump) {
  AttrLayout layout;
  layout.clockid = 1;  // CLOCK_MONOTONIC, the dumps' clock
  SyntheticStream stream(path, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                   PERF_SAMPLE_PERIOD, layout);
  format::Mmap2View m;
  m.misc = format::kMiscUser;
  m.pid = m.tid = 4242;
  m.addr = 0x7f0000000000;
  m.len = 4096;
  m.prot = 5;  // r-x
  m.filename = dump;
  format::RecordBuilder b = format::build_mmap2(m);
  b.put(uint32_t{4242}).put(uint32_t{4242}).put(uint64_t{0}).put(SyntheticStream::kEventId);
  ASSERT_TRUE(b.finish());
  stream.writer().write_record(b.bytes());
  format::RecordBuilder s(format::kSample, format::kMiscUser);
  s.put(SyntheticStream::kEventId).put(uint64_t{0x10004}).put(uint32_t{4242}).put(uint32_t{4242});
  s.put(uint64_t{10}).put(uint64_t{1});
  ASSERT_TRUE(s.finish());
  stream.writer().write_record(s.bytes());
  stream.writer().write_finished_round();
}

}  // namespace

// J1-J4: jitdumps whose lengths lie (src/jit/jitdump.h). Each is parsed up to
// the bad record, with its one reason; read by the real binary through a
// recording that announces it, the function before the bad record is still
// named, the reason is one line, and memory stays that of a small input.
TEST(Corpus, JitdumpsThatLieAboutTheirLengthsStopWithTheirReason) {
  struct Case {
    std::string file, stopped, symbol;
  };
  const std::vector<Case> cases = {
      {"j1_load_claims_1t_of_code.dump", "at offset 107: JIT_CODE_LOAD of 1099511627776 code bytes with 0 in the record",
       "ok"},
      {"j2_debug_info_claims_2e60_entries.dump",
       "at offset 107: JIT_CODE_DEBUG_INFO claims 1152921504606846976 entries in 0 bytes", "ok"},
      {"j3_header_claims_more_than_the_file.dump", "at offset 0: header size 4294967295 outside 40..109", "[unknown]"},
      {"j4_record_smaller_than_its_prefix.dump", "at offset 107: record size 0 is below its prefix's", "ok"},
  };
  size_t seen = 0;
  for (const auto& e : std::filesystem::directory_iterator(SONDE_CORPUS_DIR))
    seen += e.path().extension() == ".dump";
  EXPECT_EQ(seen, cases.size()) << "a corpus jitdump without an expectation here";
  for (const auto& c : cases) {
    auto bytes = read_small_file(corpus(c.file));
    ASSERT_TRUE(bytes) << c.file;
    auto d = jit::parse_jitdump({reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()});
    EXPECT_EQ(d.stopped, c.stopped) << c.file;

    TempDir t;
    const std::string dump = t / "jit-4242.dump", data = t / "jit.data";
    write_file_atomic(dump, *bytes);
    write_jit_recording(data, dump);
    ChildUsage r = run_measured({sonde_bin(), "script", "-F", "ip,sym", "-i", data});
    expect_bounded(r, c.file);
    EXPECT_EQ(r.exit_code, 0) << c.file << ": " << r.err;
    EXPECT_EQ(r.out, "            10004 " + c.symbol + "\n") << c.file;
    EXPECT_NE(r.err.find("sonde script: jitdump: " + dump + " " + c.stopped + "\n"), std::string::npos)
        << c.file << ": " << r.err;
  }
}

}  // namespace sonde::test

namespace sonde::test {
namespace {

// Symbol indexes (symbol/symbol_index.h) whose header and arrays disagree in
// the ways a 64-bit or 32-bit sum can hide: each is refused with its reason
// before a lookup could read outside the file.
TEST(Corpus, HostileSymbolIndexesAreRefused) {
  SymbolIndexKey key;
  key.build_id.size = 20;
  for (uint8_t i = 0; i < 20; ++i) key.build_id.bytes[i] = i;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"s1_symbol_index_count_wraps.idx", "symbol count larger than the file"},
      {"s2_symbol_index_name_past_strings.idx", "a name past the string table"},
      {"s3_symbol_index_equal_addresses.idx", "addresses out of order"},
  };
  for (const auto& [file, want] : cases) {
    auto bytes = read_small_file(corpus(file));
    ASSERT_TRUE(bytes) << file;
    std::string why;
    auto index = SymbolIndex::open({reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()}, key, &why);
    EXPECT_FALSE(index) << file;
    EXPECT_EQ(why, want) << file;
  }
}

}  // namespace
}  // namespace sonde::test
