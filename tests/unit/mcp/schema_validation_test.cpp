#include "togmal/mcp/schema_validation.h"

#include <gtest/gtest.h>

namespace togmal::mcp {
namespace {

using json = nlohmann::json;

const json& Schema() {
  static const json schema = json::parse(R"({
    "type": "object",
    "properties": {
      "prompt": {"type": "string", "minLength": 1, "maxLength": 5},
      "severity": {"type": "string", "enum": ["low", "high"]},
      "limit": {"type": "integer", "minimum": 1, "maximum": 100},
      "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
      "flag": {"type": "boolean"},
      "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "maxItems": 2, "minItems": 1},
      "tool_input": {
        "type": "object",
        "properties": {"command": {"type": "string"}, "depth": {"type": "object",
          "properties": {"n": {"type": "integer"}}, "additionalProperties": false}},
        "required": ["command"]
      },
      "maybe": {"type": ["string", "null"]},
      "mode": {"const": "fast"},
      "either": {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 0}]}
    },
    "required": ["prompt"],
    "additionalProperties": false
  })");
  return schema;
}

struct Case {
  const char* name;
  const char* arguments;
  const char* error;  // nullptr = valid
};

class SchemaValidationTest : public ::testing::TestWithParam<Case> {};

TEST_P(SchemaValidationTest, Validates) {
  const Case& c = GetParam();
  auto result = ValidateAgainstSchema(Schema(), json::parse(c.arguments));
  if (c.error == nullptr) {
    EXPECT_TRUE(result.ok()) << result.error();
  } else {
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error(), c.error);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SchemaValidationTest,
    ::testing::Values(
        Case{"minimal", R"({"prompt":"hi"})", nullptr},
        Case{"everything", R"({"prompt":"héllo","severity":"low","limit":100,"ratio":0.5,
             "flag":true,"tags":["a","bcd"],"tool_input":{"command":"ls","extra":1,
             "depth":{"n":2}},"maybe":null,"mode":"fast","either":3})",
             nullptr},
        Case{"integral float is an integer", R"({"prompt":"x","limit":5.0})", nullptr},
        Case{"missing required", R"({})", "arguments: missing required property \"prompt\""},
        Case{"wrong type", R"({"prompt":3})", "arguments.prompt: expected string, got integer"},
        Case{"too short", R"({"prompt":""})",
             "arguments.prompt: must be at least 1 characters long, got 0"},
        Case{"too long in code points", R"({"prompt":"ééééééé"})",
             "arguments.prompt: must be at most 5 characters long, got 7"},
        Case{"enum", R"({"prompt":"x","severity":"medium"})",
             "arguments.severity: must be one of \"low\", \"high\", got \"medium\""},
        Case{"below minimum", R"({"prompt":"x","limit":0})",
             "arguments.limit: must be >= 1, got 0"},
        Case{"above maximum", R"({"prompt":"x","limit":101})",
             "arguments.limit: must be <= 100, got 101"},
        Case{"not an integer", R"({"prompt":"x","limit":1.5})",
             "arguments.limit: expected integer, got number"},
        Case{"exclusive minimum", R"({"prompt":"x","ratio":0})",
             "arguments.ratio: must be > 0, got 0"},
        Case{"exclusive maximum", R"({"prompt":"x","ratio":1})",
             "arguments.ratio: must be < 1, got 1"},
        Case{"boolean", R"({"prompt":"x","flag":"yes"})",
             "arguments.flag: expected boolean, got string"},
        Case{"unexpected property", R"({"prompt":"x","bogus":1})",
             "arguments: unexpected property \"bogus\" (allowed: either, flag, limit, maybe, mode, "
             "prompt, ratio, severity, tags, tool_input)"},
        Case{"array item", R"({"prompt":"x","tags":["a","long"]})",
             "arguments.tags[1]: must be at most 3 characters long, got 4"},
        Case{"too many items", R"({"prompt":"x","tags":["a","b","c"]})",
             "arguments.tags: must have at most 2 items, got 3"},
        Case{"too few items", R"({"prompt":"x","tags":[]})",
             "arguments.tags: must have at least 1 items, got 0"},
        Case{"nested required", R"({"prompt":"x","tool_input":{}})",
             "arguments.tool_input: missing required property \"command\""},
        Case{"nested deeper", R"({"prompt":"x","tool_input":{"command":"ls","depth":{"n":"2"}}})",
             "arguments.tool_input.depth.n: expected integer, got string"},
        Case{"nested additional", R"({"prompt":"x","tool_input":{"command":"ls","depth":{"m":1}}})",
             "arguments.tool_input.depth: unexpected property \"m\" (allowed: n)"},
        Case{"type list", R"({"prompt":"x","maybe":1})",
             "arguments.maybe: expected string or null, got integer"},
        Case{"const", R"({"prompt":"x","mode":"slow"})",
             "arguments.mode: must be \"fast\", got \"slow\""},
        Case{"anyOf", R"({"prompt":"x","either":-1})",
             "arguments.either: matches none of the allowed forms (arguments.either: expected "
             "string, got integer)"},
        Case{"not an object", R"([1])", "arguments: expected object, got array"}),
    [](const ::testing::TestParamInfo<Case>& param_info) {
      std::string name = param_info.param.name;
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

TEST(SchemaValidationPathTest, OddKeysAreQuotedInPaths) {
  json schema = {{"type", "object"}, {"properties", {{"a b", {{"type", "string"}}}}}};
  auto result = ValidateAgainstSchema(schema, {{"a b", 1}});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error(), "arguments[\"a b\"]: expected string, got integer");
}

}  // namespace
}  // namespace togmal::mcp
