#include "togmal/util/json_dump.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "random_json.h"

namespace togmal::util {
namespace {

using json = nlohmann::json;

// What the writer must match, byte for byte.
std::string NlohmannDump(const json& value, int indent) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

// Strings that take every path of the escaping: plain runs, each named
// escape, other control characters, DEL, UTF-8 (valid, cut, overlong, a
// surrogate), and a backslash before a quote.
std::vector<std::string> TrickyStrings() {
  return {"",
          "git status --short",
          "say \"hi\"\\n",
          std::string("nul\0byte", 8),
          "\b\f\n\r\t\x01\x1f\x7f",
          "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80",
          "cut \xe2\x9c",
          "overlong \xc0\xaf",
          "surrogate \xed\xa0\x80",
          "lone \x80 continuation",
          "\xff\xfe",
          "\\\"quoted\\\"",
          "[REDACTED]"};
}

TEST(DumpJson, ReplacesInvalidUtf8InsteadOfThrowing) {
  EXPECT_NO_THROW((void)DumpJson(json(std::string("bad \xFF byte"))));
  EXPECT_EQ(DumpJson(json(std::string("bad \xFF byte"))), "\"bad \xEF\xBF\xBD byte\"");
}

TEST(AppendJsonTest, EveryStringAsNlohmannWritesIt) {
  for (const std::string& text : TrickyStrings()) {
    std::string out = "prefix ";
    AppendJsonString(out, text);
    EXPECT_EQ(out, "prefix " + NlohmannDump(json(text), -1)) << text;
    for (int indent : {-1, 0, 2}) {
      const json value = {{text, text}, {"list", {text, 1}}};
      EXPECT_EQ(DumpJson(value, indent), NlohmannDump(value, indent)) << text;
    }
  }
}

TEST(AppendJsonTest, ScalarsAndEmptyContainers) {
  const json values[] = {nullptr,
                         true,
                         false,
                         0,
                         -1,
                         std::numeric_limits<std::int64_t>::min(),
                         std::numeric_limits<std::uint64_t>::max(),
                         0.1,
                         -0.0,
                         1e300,
                         3.0,
                         json::object(),
                         json::array(),
                         json::array({json::object(), json::array()}),
                         json::binary({1, 2, 3}, 7),
                         json::binary({})};
  for (const json& value : values) {
    for (int indent : {-1, 0, 2, 4}) {
      const json nested = {{"value", value}, {"in", {{"list", {value, value}}}}};
      EXPECT_EQ(DumpJson(value, indent), NlohmannDump(value, indent)) << value.dump();
      EXPECT_EQ(DumpJson(nested, indent), NlohmannDump(nested, indent)) << value.dump();
    }
  }
}

// A serve answer as tools/call writes it: the pretty text inside the compact
// message.
TEST(AppendJsonTest, ToolAnswer) {
  const json result = {{"audit_id", 7},
                       {"decision", "allow"},
                       {"level", "L0"},
                       {"reasons", {{{"level", "L0"}, {"why", "'ls' only reads."}}}},
                       {"source", "classifier"}};
  const json answer = {{"jsonrpc", "2.0"},
                       {"id", 3},
                       {"result",
                        {{"content", {{{"type", "text"}, {"text", DumpJson(result, 2)}}}},
                         {"isError", false},
                         {"structuredContent", result}}}};
  EXPECT_EQ(DumpJson(answer), NlohmannDump(answer, -1));
  EXPECT_EQ(DumpJson(result, 2), NlohmannDump(result, 2));
}

// Random documents mixing all of the above, nested a few levels.
TEST(AppendJsonTest, RandomDocuments) {
  std::mt19937 random(20261129);
  for (int round = 0; round < 2000; ++round) {
    const json value = RandomJson(random, TrickyStrings());
    for (int indent : {-1, 2}) {
      ASSERT_EQ(DumpJson(value, indent), NlohmannDump(value, indent)) << round;
    }
  }
}

}  // namespace
}  // namespace togmal::util
