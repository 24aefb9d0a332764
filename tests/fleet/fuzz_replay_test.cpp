// Replays a fuzz harness's regression inputs (tests/fleet/corpus/HARNESS:
// what fuzzing or review found, and the seeds) through the harness itself,
// linked here without libFuzzer: any input that breaks one of its checks
// aborts this test. The exact outcomes of the findings are asserted in
// fleet_unit_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

TEST(FUZZ_SUITE, ReplaysEveryRegressionInput) {
  size_t inputs = 0;
  for (const auto& e : std::filesystem::directory_iterator(FUZZ_CORPUS_DIR)) {
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string bytes = ss.str();
    SCOPED_TRACE(e.path().string());
    EXPECT_EQ(LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), 0);
    ++inputs;
  }
  EXPECT_GE(inputs, 5u);
}
