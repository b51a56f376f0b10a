// Fields of stored JSON read with the wrong type read as absent.
#include "togmal/util/json_fields.h"

#include <gtest/gtest.h>

namespace togmal::util {
namespace {

using nlohmann::json;

TEST(JsonFields, ReadTheFieldWhenItHasTheType) {
  const json object = {{"cwd", "/work"}, {"id", 7}, {"done", true}};
  EXPECT_EQ(StringField(object, "cwd"), "/work");
  EXPECT_EQ(IntField(object, "id", -1), 7);
  EXPECT_TRUE(BoolField(object, "done", false));
}

TEST(JsonFields, AWrongTypeOrAMissingFieldReadsAsTheFallback) {
  const json object = {{"cwd", 5}, {"id", "7"}, {"done", "yes"}, {"reason", nullptr}};
  EXPECT_EQ(StringField(object, "cwd"), "");
  EXPECT_EQ(StringField(object, "reason", "none"), "none");
  EXPECT_EQ(StringField(object, "absent", "none"), "none");
  EXPECT_EQ(IntField(object, "id", -1), -1);
  EXPECT_EQ(IntField(object, "absent", 3), 3);
  EXPECT_FALSE(BoolField(object, "done", false));
  // Not an object at all.
  EXPECT_EQ(StringField(json::array({"cwd"}), "cwd", "x"), "x");
  EXPECT_EQ(IntField(json("text"), "id", 2), 2);
  EXPECT_TRUE(BoolField(json(), "done", true));
}

TEST(JsonFields, OptionalStringTellsAnEmptyStringFromNone) {
  const nlohmann::json object = {{"empty", ""}, {"null", nullptr}, {"number", 3}, {"text", "t"}};
  EXPECT_EQ(OptionalStringField(object, "empty"), std::optional<std::string>(""));
  EXPECT_EQ(OptionalStringField(object, "text"), std::optional<std::string>("t"));
  EXPECT_EQ(OptionalStringField(object, "null"), std::nullopt);
  EXPECT_EQ(OptionalStringField(object, "number"), std::nullopt);
  EXPECT_EQ(OptionalStringField(object, "missing"), std::nullopt);
  EXPECT_EQ(OptionalStringField(nlohmann::json::array(), "text"), std::nullopt);
}

TEST(JsonFields, OrderedJsonToo) {
  const nlohmann::ordered_json object = {{"created_file", true}, {"name", 1}};
  EXPECT_TRUE(BoolField(object, "created_file", false));
  EXPECT_EQ(StringField(object, "name", "?"), "?");
}

}  // namespace
}  // namespace togmal::util
