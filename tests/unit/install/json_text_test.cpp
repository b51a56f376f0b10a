// Editing a JSON text in place: only the bytes of what is added, replaced or
// removed change, and what is added looks like its neighbours.
#include "togmal/install/json_text.h"

#include <gtest/gtest.h>

namespace togmal::install {
namespace {

JsonText Text(const std::string& text, int indent = 2, char indent_char = ' ') {
  JsonStyle style;
  style.indent = indent;
  style.indent_char = indent_char;
  return JsonText(text, style);
}

TEST(JsonText, AddsToAOneLineFileInItsSpacing) {
  JsonText tight = Text(R"({"a":1,"b":[1,2]})", -1);
  ASSERT_TRUE(tight.AddMember({}, "c", OrderedJson{{"d", {1, 2}}}).ok());
  ASSERT_TRUE(tight.AppendElement({"b"}, 3).ok());
  EXPECT_EQ(tight.text(), R"({"a":1,"b":[1,2,3],"c":{"d":[1,2]}})");

  JsonText spaced = Text(R"({"a": 1, "b": {}} )", -1);
  ASSERT_TRUE(spaced.AddMember({"b"}, "x", OrderedJson::array({"y"})).ok());
  ASSERT_TRUE(spaced.AddMember({}, "c", true).ok());
  EXPECT_EQ(spaced.text(), R"({"a": 1, "b": {"x": ["y"]}, "c": true} )");
}

TEST(JsonText, AddsToALaidOutFileAtItsSiblingsIndentation) {
  JsonText text = Text("{\n    \"a\": 1,\n    \"list\": [\n        \"x\"\n    ]\n}\n", 4);
  ASSERT_TRUE(text.AppendElement({"list"}, OrderedJson{{"k", "v"}}).ok());
  ASSERT_TRUE(text.AddMember({}, "z", OrderedJson::object()).ok());
  EXPECT_EQ(text.text(),
            "{\n    \"a\": 1,\n    \"list\": [\n        \"x\",\n        {\n            \"k\": "
            "\"v\"\n        }\n    ],\n    \"z\": {}\n}\n");
}

TEST(JsonText, FillsAnEmptyContainerOnLinesInALaidOutFile) {
  JsonText text = Text("{\n\t\"hooks\": {}\n}", 1, '\t');
  ASSERT_TRUE(text.AddMember({"hooks"}, "Pre", OrderedJson::array({1})).ok());
  EXPECT_EQ(text.text(), "{\n\t\"hooks\": {\n\t\t\"Pre\": [\n\t\t\t1\n\t\t]\n\t}\n}");
}

TEST(JsonText, KeepsWindowsLineEnds) {
  JsonText text = Text("{\r\n  \"a\": {},\r\n  \"b\": [\r\n    1\r\n  ]\r\n}\r\n");
  ASSERT_TRUE(text.AddMember({"a"}, "x", OrderedJson::array({2})).ok());
  ASSERT_TRUE(text.AppendElement({"b"}, 3).ok());
  EXPECT_EQ(text.text(),
            "{\r\n  \"a\": {\r\n    \"x\": [\r\n      2\r\n    ]\r\n  },\r\n  \"b\": "
            "[\r\n    1,\r\n    3\r\n  ]\r\n}\r\n");
}

TEST(JsonText, FindsKeysWrittenWithEscapes) {
  JsonText text = Text(R"({"a\"b": {"\u00e9": []}, "c": 1})", -1);
  ASSERT_TRUE(text.AppendElement({"a\"b", "\xc3\xa9"}, "x").ok());
  EXPECT_EQ(text.text(), R"({"a\"b": {"\u00e9": ["x"]}, "c": 1})");
}

TEST(JsonText, RemovesWithTheCommaThatJoinedIt) {
  const std::string pretty =
      "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2,\n    3\n  ],\n  \"c\": 3\n}\n";
  JsonText first = Text(pretty);
  ASSERT_TRUE(first.Remove({"a"}).ok());
  EXPECT_EQ(first.text(), "{\n  \"b\": [\n    1,\n    2,\n    3\n  ],\n  \"c\": 3\n}\n");
  JsonText middle = Text(pretty);
  ASSERT_TRUE(middle.Remove({"b", "1"}).ok());
  ASSERT_TRUE(middle.Remove({"c"}).ok());
  EXPECT_EQ(middle.text(), "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    3\n  ]\n}\n");
  JsonText only = Text(R"({"a": [ {"x": 1} ], "b": 2})", -1);
  ASSERT_TRUE(only.Remove({"a", "0"}).ok());
  EXPECT_EQ(only.text(), R"({"a": [], "b": 2})");
  EXPECT_FALSE(only.Remove({"nope"}).ok());
}

TEST(JsonText, ReplacesAValueWhereItStands) {
  JsonText text = Text("{\"s\": \"a \\\"quoted\\\" one\", \"n\": 1.50}", -1);
  ASSERT_TRUE(text.Replace({"s"}, "b").ok());
  EXPECT_EQ(text.text(), "{\"s\": \"b\", \"n\": 1.50}");
  EXPECT_EQ(text.Value()["n"], 1.5);
}

}  // namespace
}  // namespace togmal::install
