#include "stat/stat_test_util.h"

#include <regex>
#include <sstream>

#include "support/test_support.h"

namespace sonde::test {

std::string stat_work_bin() {
  static std::string bin = [] {
    static TempDir dir;  // lives for the process
    std::string out = dir / "stat_work";
    return compile_fixture("stat_work.c", out, "-O1") ? out : std::string();
  }();
  return bin;
}

std::map<std::string, double> csv_counts(const std::string& csv) {
  std::map<std::string, double> out;
  for (const auto& line : lines(csv)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string x;
    while (std::getline(ss, x, ',')) f.push_back(x);
    if (f.size() < 3 || line.empty() || line[0] == '#') continue;
    try {
      out[f[2]] = std::stod(f[0]);
    } catch (...) {
      out[f[2]] = -1;  // <not counted>, <not supported>
    }
  }
  return out;
}

std::string mask_numbers(const std::string& text) {
  static const std::regex noise(R"(\s*\( \+-\s*[0-9.]+% \))");
  static const std::regex csv_noise(R"(,[0-9.]+%)");
  static const std::regex number(R"(\s*-?[0-9][0-9.]*)");
  static const std::regex rate(R"([KMG]?/sec)");
  static const std::regex trailing(R"(\s+$)");
  std::string out;
  for (const auto& line : lines(text)) {
    std::string l = std::regex_replace(line, noise, "");
    l = std::regex_replace(l, csv_noise, ",P%");
    l = std::regex_replace(l, number, " N");
    l = std::regex_replace(l, rate, "/sec");
    l = std::regex_replace(l, trailing, "");
    out += l + "\n";
  }
  return out;
}

}  // namespace sonde::test
