// Reading what comes from outside with bounds: JSON depth and numbers, YAML
// aliases and depth, and configuration files that are not regular files.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <variant>

#include "process.h"
#include "togmal/util/config_file.h"
#include "togmal/util/json_parse.h"
#include "togmal/util/yaml.h"

namespace togmal::util {
namespace {

namespace fs = std::filesystem;

TEST(ParseJson, BoundsNestingBeforeBuildingAnything) {
  EXPECT_TRUE(ParseJson("[[[1]]]").ok());
  auto deep = ParseJson(std::string(200000, '[') + std::string(200000, ']'));
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.error().find("200000 levels"), std::string::npos) << deep.error();
  // Brackets inside strings are not nesting.
  EXPECT_TRUE(ParseJson(R"({"a": ")" + std::string(1000, '[') + R"("})").ok());
  EXPECT_EQ(JsonNestingDepth(R"(["\"[[", {"a": [1]}])"), 3u);
}

TEST(ParseJson, NumbersOutOfRangeAndSyntaxErrorsAreErrors) {
  auto huge = ParseJson(R"({"id": 1e400})");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.error().find("out of range"), std::string::npos) << huge.error();
  EXPECT_FALSE(ParseJson("{").ok());
  EXPECT_FALSE(ParseJson("").ok());
}

TEST(ParseJsonOrFailure, KeepsTheKindOfFailureApart) {
  using Kind = JsonParseFailure::Kind;
  auto kind_of = [](std::string_view text) {
    auto parsed = ParseJsonOrFailure(text);
    const auto* failure = std::get_if<JsonParseFailure>(&parsed);
    return failure != nullptr ? std::optional<Kind>(failure->kind) : std::nullopt;
  };
  EXPECT_EQ(kind_of("[1]"), std::nullopt);
  EXPECT_EQ(kind_of(std::string(65, '[') + std::string(65, ']')), Kind::kTooDeep);
  EXPECT_EQ(kind_of("{"), Kind::kSyntax);
  EXPECT_EQ(kind_of("\"\xc3\x28\""), Kind::kSyntax);  // invalid UTF-8
  EXPECT_EQ(kind_of("[1e400]"), Kind::kOutOfRange);
  auto parsed = ParseJsonOrFailure("[-1e400]");
  EXPECT_NE(std::get<JsonParseFailure>(parsed).detail.find("number overflow"), std::string::npos);
}

TEST(JsonDeeperThan, ChecksParsedValuesWithoutRecursion) {
  nlohmann::json value = 1;
  for (int i = 0; i < 100000; ++i) value = nlohmann::json::array({std::move(value)});
  EXPECT_TRUE(JsonDeeperThan(value, 64));
  EXPECT_FALSE(JsonDeeperThan(nlohmann::json::parse("[[1]]"), 2));
  EXPECT_TRUE(JsonDeeperThan(nlohmann::json::parse("[[1]]"), 1));
}

TEST(ParseYaml, AnAliasBombIsRefusedByItsExpandedSize) {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char previous = 'a';
  for (char name = 'b'; name <= 'i'; ++name) {
    bomb += std::string(1, name) + ": &" + name + " [";
    for (int i = 0; i < 9; ++i) bomb += std::string(i ? ", *" : "*") + previous;
    bomb += "]\n";
    previous = name;
  }
  ASSERT_LT(bomb.size(), 1000u);
  auto parsed = ParseYaml(bomb, "bomb.yaml");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.error().find("bomb.yaml"), std::string::npos);
  EXPECT_NE(parsed.error().find("aliases"), std::string::npos) << parsed.error();
}

TEST(ParseYaml, DepthAndSyntaxErrorsNameTheSource) {
  auto deep = ParseYaml(std::string(100, '[') + std::string(100, ']'), "deep.yaml");
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.error().find("deep.yaml:1: nested deeper"), std::string::npos) << deep.error();
  auto broken = ParseYaml("a: [1,\nb: }", "broken.yaml");
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().rfind("broken.yaml:", 0), 0u) << broken.error();
}

// yaml-cpp keeps both values of a repeated key and a lookup finds the first;
// PyYAML and js-yaml keep the last. A reviewer would read the other value, so
// every file togmal reads as configuration refuses it, naming both lines.
TEST(ParseYaml, ARepeatedKeyIsAnErrorNamingBothLines) {
  struct Case {
    const char* yaml;
    const char* error;
  };
  const Case cases[] = {
      {"id: x\naction: ALLOW\nreason: r\naction: DENY\n",
       "r.yaml:4: duplicate key \"action\" (also at r.yaml:2"},
      // Nested maps, inside a list.
      {"rules:\n  - id: x\n    conditions:\n      tool_name: Bash\n      tool_name: Read\n",
       "r.yaml:5: duplicate key \"tool_name\" (also at r.yaml:4"},
      // A flow map.
      {"hook: {levels: {L1: allow}}\nx: {a: 1, a: 2}\n",
       "r.yaml:2: duplicate key \"a\" (also at r.yaml:2"},
      // Quoting does not make another key: all three are the string a.
      {"a: 1\n\"a\": 2\n", "r.yaml:2: duplicate key \"a\" (also at r.yaml:1"},
      {"'a': 1\nb: 2\na: 3\n", "r.yaml:3: duplicate key \"a\" (also at r.yaml:1"},
  };
  for (const Case& test : cases) {
    auto parsed = ParseYaml(test.yaml, "r.yaml");
    ASSERT_FALSE(parsed.ok()) << test.yaml;
    EXPECT_EQ(parsed.error().rfind(test.error, 0), 0u) << parsed.error();
  }
  // The same key in two maps is no repetition.
  EXPECT_TRUE(ParseYaml("a: {x: 1}\nb: {x: 2}\nc: [{x: 1}, {x: 2}]\n", "r.yaml").ok());
}

TEST(ParseYaml, RepeatedKeysAreKeptWhereTheCallerAllowsThem) {
  // What yaml-cpp does with them (and so what the scanner sees): both are
  // kept, and a lookup finds the first.
  auto parsed = ParseYaml("a: 1\na: 2\n", "ci.yml", {}, DuplicateKeys::kAllowed);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->size(), 2u);
  EXPECT_EQ((*parsed)["a"].Scalar(), "1");
}

TEST(YamlToJson, TypesScalarsOnlyWhenAsked) {
  auto root = ParseYaml("n: 1\nq: '1'\nb: true\nz: ~\ns: [a, 2]\n", "t.yaml");
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(YamlToJson(*root, YamlScalars::kTyped),
            nlohmann::json::parse(R"({"n":1,"q":"1","b":true,"z":null,"s":["a",2]})"));
  EXPECT_EQ(YamlToJson(*root, YamlScalars::kText),
            nlohmann::json::parse(R"({"n":"1","q":"1","b":"true","z":null,"s":["a","2"]})"));
}

TEST(ReadConfigFile, ReadsOnlyRegularFilesUnderTheCap) {
  togmal::testing::TempDir dir;
  const fs::path root = dir.path();
  EXPECT_FALSE(ReadConfigFile(root / "missing.yaml")->has_value());
  std::ofstream(root / "ok.yaml") << "a: 1\n";
  EXPECT_EQ(**ReadConfigFile(root / "ok.yaml"), "a: 1\n");
  ASSERT_EQ(::mkfifo((root / "fifo.yaml").c_str(), 0600), 0);
  auto fifo = ReadConfigFile(root / "fifo.yaml");  // must not wait for a writer
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.error().find("not a regular file"), std::string::npos);
  fs::create_symlink("/dev/zero", root / "zero.yaml");
  EXPECT_FALSE(ReadConfigFile(root / "zero.yaml").ok());
  fs::create_directories(root / "dir.yaml");
  EXPECT_FALSE(ReadConfigFile(root / "dir.yaml").ok());
  std::ofstream(root / "big.yaml") << std::string(2000, 'x');
  auto big = ReadConfigFile(root / "big.yaml", 1000);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().find("larger than 1000 bytes"), std::string::npos);
}

}  // namespace
}  // namespace togmal::util
