// The case tables: every rule of the classifier, the look-alikes and the
// evasions, each with its expected level (classifier_cases.txt,
// classifier_attack_cases.txt), and what the strict profile changes
// (classifier_strict_cases.txt, judged under profile: strict).

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "togmal/policy/classifier.h"
#include "togmal/util/embedded.h"

namespace togmal::policy {
namespace {

constexpr const char* kCwd = "/home/user/project";

struct Case {
  std::string file;
  int line = 0;
  Level expected = Level::kL0;
  bool is_tool = false;
  std::string tool;
  std::string input;  // command, or the tool's JSON input
  Profile profile = Profile::kStandard;
};

// Keeps gtest from dumping the struct's bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.file << ":" << c.line; }

std::string Unescape(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == 'n' || text[i + 1] == 't')) {
      out.push_back(text[i + 1] == 'n' ? '\n' : '\t');
      ++i;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// The rules' cases, and the attack classes with their benign neighbours
// (standard profile); then the strict profile's cases.
constexpr const char* kCaseFiles[] = {"classifier_cases.txt", "classifier_attack_cases.txt",
                                      "classifier_strict_cases.txt"};
constexpr const char* kStrictFile = "classifier_strict_cases.txt";

std::vector<Case> LoadCases(const char* file) {
  std::vector<Case> cases;
  std::ifstream in(std::string(TOGMAL_SOURCE_DIR) + "/tests/unit/policy/" + file);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    Case c;
    c.file = file;
    c.line = number;
    if (std::string(file) == kStrictFile) c.profile = Profile::kStrict;
    auto level = ParseLevel(line.substr(0, 2));
    if (!level || line.size() < 5) {
      c.input = "malformed table line";  // fails visibly below
      cases.push_back(c);
      continue;
    }
    c.expected = *level;
    const char kind = line[3];
    std::string rest = line.substr(5);
    if (kind == '@') {
      c.is_tool = true;
      const std::size_t space = rest.find(' ');
      c.tool = rest.substr(0, space);
      c.input = space == std::string::npos ? "{}" : rest.substr(space + 1);
    } else {
      c.input = kind == '~' ? Unescape(rest) : rest;
    }
    cases.push_back(c);
  }
  return cases;
}

std::vector<Case> LoadCases() {
  std::vector<Case> cases;
  for (const char* file : kCaseFiles) {
    std::vector<Case> more = LoadCases(file);
    EXPECT_FALSE(more.empty()) << file;
    cases.insert(cases.end(), more.begin(), more.end());
  }
  return cases;
}

// What production uses: the tables compiled at build time.
const Classifier& Compiled() {
  static const Classifier classifier = [] {
    setenv("HOME", "/home/user", 1);
    auto loaded = Classifier::Compiled();
    if (!loaded) {
      ADD_FAILURE() << loaded.error();
      std::abort();
    }
    return *loaded;
  }();
  return classifier;
}

// The same tables parsed from the embedded YAML at run time.
const Classifier& Embedded() {
  static const Classifier classifier = [] {
    setenv("HOME", "/home/user", 1);
    auto loaded =
        Classifier::FromYaml(*util::FindEmbeddedFile("classifier.yaml"), "classifier.yaml");
    if (!loaded) {
      ADD_FAILURE() << loaded.error();
      std::abort();
    }
    return *loaded;
  }();
  return classifier;
}

class ClassifierTable : public ::testing::TestWithParam<Case> {};

TEST_P(ClassifierTable, ClassifiesAtItsLevel) {
  const Case& c = GetParam();
  ASSERT_NE(c.input, "malformed table line") << c.file << ":" << c.line;
  Classification result;
  const Classifier compiled = Compiled().WithProfile(c.profile);
  const Classifier embedded = Embedded().WithProfile(c.profile);
  if (c.is_tool) {
    auto input = nlohmann::json::parse(c.input, nullptr, false);
    ASSERT_FALSE(input.is_discarded()) << c.file << ":" << c.line << ": bad JSON";
    result = compiled.Classify({c.tool, input, kCwd});
    const Classification from_yaml = embedded.Classify({c.tool, input, kCwd});
    EXPECT_EQ(ToJson(from_yaml), ToJson(result)) << "compiled and YAML tables disagree";
  } else {
    result = compiled.ClassifyCommand(c.input, kCwd);
    const Classification from_yaml = embedded.ClassifyCommand(c.input, kCwd);
    EXPECT_EQ(ToJson(from_yaml), ToJson(result)) << "compiled and YAML tables disagree";
  }
  EXPECT_EQ(LevelName(result.level), LevelName(c.expected))
      << c.file << ":" << c.line << ": " << (c.is_tool ? c.tool + " " : "") << c.input
      << "\n  decided by: " << result.Deciding().why << " [" << result.Deciding().segment << "]";
  // Every verdict explains itself.
  EXPECT_FALSE(result.Deciding().why.empty());
  EXPECT_EQ(result.Deciding().level, result.level);
}

INSTANTIATE_TEST_SUITE_P(Cases, ClassifierTable, ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                           const std::string prefix =
                               param_info.param.file == kCaseFiles[0] ? "line_"
                               : param_info.param.file == kStrictFile ? "strict_line_"
                                                                      : "attack_line_";
                           return prefix + std::to_string(param_info.param.line);
                         });

TEST(ClassifierTableFile, HasAtLeast300CasesCoveringEveryLevel) {
  const std::vector<Case> cases = LoadCases();
  EXPECT_GE(cases.size(), 300u);
  int per_level[4] = {0, 0, 0, 0};
  for (const Case& c : cases) ++per_level[static_cast<int>(c.expected)];
  for (int count : per_level) EXPECT_GE(count, 50);
}

}  // namespace
}  // namespace togmal::policy
