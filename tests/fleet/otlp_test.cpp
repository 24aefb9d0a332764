// `sonde convert --to otlp` against the OpenTelemetry profiles schema
// (v1development, tests/fleet/otlp_schema: the published names and field
// numbers) with protoc, the protobuf compiler, as the only reader: a
// schema-level round trip (decode to text, encode back: the same bytes,
// and no field the schema does not know), then the decoded text's samples
// resolved through the dictionary give the same leaf functions and shares
// as `sonde report --no-children`. No OTLP server runs here (docs/export.md).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

const char* kMessage = "opentelemetry.proto.profiles.v1development.ProfilesData";
const char* kProto = "opentelemetry/proto/profiles/v1development/profiles.proto";

// protoc's text format, as a tree: a message's scalar fields by name (in
// order) and its nested messages by name.
struct Msg {
  std::map<std::string, std::vector<std::string>> values;
  std::map<std::string, std::vector<std::unique_ptr<Msg>>> children;
  const Msg& child(const std::string& name, size_t i = 0) const { return *children.at(name).at(i); }
  size_t count(const std::string& name) const { return children.count(name) ? children.at(name).size() : 0; }
  int64_t num(const std::string& name, size_t i = 0) const {
    return values.count(name) && values.at(name).size() > i ? std::stoll(values.at(name)[i]) : 0;
  }
};

std::unique_ptr<Msg> parse_text(const std::string& text) {
  auto root = std::make_unique<Msg>();
  std::vector<Msg*> open = {root.get()};
  for (std::string line : lines(text)) {
    line.erase(0, line.find_first_not_of(' '));
    if (line.empty()) continue;
    if (line == "}") {
      open.pop_back();
    } else if (line.ends_with(" {")) {
      auto& list = open.back()->children[line.substr(0, line.size() - 2)];
      list.push_back(std::make_unique<Msg>());
      open.push_back(list.back().get());
    } else {
      const size_t colon = line.find(": ");
      std::string v = line.substr(colon + 2);
      if (v.size() >= 2 && v.front() == '"') v = v.substr(1, v.size() - 2);
      open.back()->values[line.substr(0, colon)].push_back(v);
    }
  }
  return root;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Otlp : public ::testing::Test {
 protected:
  void SetUp() override {
    if (sh("command -v protoc >/dev/null").exit_code != 0)
      GTEST_SKIP() << "protoc is not installed (protobuf-compiler, scripts/install-deps.sh)";
    ASSERT_TRUE(compile_fixture("two_mix.c", dir_ / "two_mix", "-fno-omit-frame-pointer"));
    auto r = run({sonde_bin(), "record", "-q", "-g", "-o", dir_ / "t.data", "--", dir_ / "two_mix", "0.4", "70"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  RunResult protoc(const std::string& mode, const std::string& in, const std::string& out) {
    return sh("cd " + quoted(OTLP_SCHEMA_DIR) + " && protoc -I. --" + mode + "=" + kMessage + " " + kProto + " < " +
              quoted(in) + " > " + quoted(out));
  }
  TempDir dir_;
};

TEST_F(Otlp, ProtocDecodesAndReencodesTheSameBytes) {
  auto c = run({sonde_bin(), "convert", "-i", dir_ / "t.data", "--to", "otlp", "-o", dir_ / "t.otlp"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  auto d = protoc("decode", dir_ / "t.otlp", dir_ / "t.txt");
  ASSERT_EQ(d.exit_code, 0) << d.err;
  const std::string text = read_file(dir_ / "t.txt");
  // protoc prints a field its schema lacks by number ("12: 34").
  EXPECT_FALSE(std::regex_search(text, std::regex("(^|\n) *[0-9]+: "))) << text.substr(0, 2000);
  auto e = protoc("encode", dir_ / "t.txt", dir_ / "back.otlp");
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_TRUE(read_file(dir_ / "t.otlp") == read_file(dir_ / "back.otlp")) << "protoc re-encoded other bytes";
}

// The samples, resolved through the dictionary: each leaf function's share
// of the cpu profile's values is `sonde report --no-children`'s self share.
TEST_F(Otlp, SamplesResolveToTheReportsLeafFunctions) {
  ASSERT_EQ(run({sonde_bin(), "convert", "-i", dir_ / "t.data", "--to", "otlp", "-o", dir_ / "t.otlp"}).exit_code, 0);
  ASSERT_EQ(protoc("decode", dir_ / "t.otlp", dir_ / "t.txt").exit_code, 0);
  auto root = parse_text(read_file(dir_ / "t.txt"));
  const Msg& dict = root->child("dictionary");
  const auto& strings = dict.values.at("string_table");
  auto str = [&](int64_t i) { return i == 0 ? std::string() : strings.at(size_t(i)); };
  const Msg& prof = root->child("resource_profiles").child("scope_profiles").child("profiles");
  EXPECT_EQ(str(prof.child("sample_type").num("type_strindex")), "cpu");
  EXPECT_EQ(str(prof.child("sample_type").num("unit_strindex")), "nanoseconds");
  EXPECT_EQ(prof.values.at("profile_id").size(), 1u);
  std::map<std::string, double> self;
  double total = 0;
  for (size_t i = 0; i < prof.count("samples"); ++i) {
    const Msg& s = prof.child("samples", i);
    const Msg& stack = dict.child("stack_table", size_t(s.num("stack_index")));
    const Msg& loc = dict.child("location_table", size_t(stack.num("location_indices")));
    const std::string fn = loc.count("lines") ? str(dict.child("function_table", size_t(loc.child("lines").num(
                                                                                         "function_index")))
                                                        .num("name_strindex"))
                                              : "";
    self[fn] += double(s.num("values"));
    total += double(s.num("values"));
    // pid, tid, thread name and cpu, by the attribute table.
    EXPECT_EQ(s.values.at("attribute_indices").size(), 4u);
    const Msg& a = dict.child("attribute_table", size_t(s.num("attribute_indices", 2)));
    EXPECT_EQ(str(a.num("key_strindex")), "thread.name");
    EXPECT_EQ(a.child("value").values.at("string_value")[0], "two_mix");
  }
  auto rep = run({sonde_bin(), "report", "-i", dir_ / "t.data", "--no-children", "--format", "json"});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  auto j = nlohmann::json::parse(rep.out);
  ASSERT_GT(total, 0);
  size_t compared = 0;
  for (const auto& e : j["events"][0]["entries"]) {
    const std::string sym = e.value("sym", "");
    if (sym != "mix_a" && sym != "mix_b") continue;
    EXPECT_NEAR(100.0 * self[sym] / total, e["self"].get<double>(), 0.01) << sym;
    ++compared;
  }
  EXPECT_EQ(compared, 2u) << rep.out;
}

TEST_F(Otlp, AnUnknownFormatNamesOtlp) {
  auto r = run({sonde_bin(), "convert", "-i", dir_ / "t.data", "--to", "otel", "-o", dir_ / "x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown format 'otel' (expected one of: pprof, folded, speedscope, html, perf, otlp)"),
            std::string::npos)
      << r.err;
}

}  // namespace
