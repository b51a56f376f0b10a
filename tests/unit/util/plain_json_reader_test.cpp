#include "plain_json_reader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "random_json.h"

namespace togmal::util {
namespace {

using json = nlohmann::json;

// Equal values of equal types all the way down (json's == calls 1 and 1u
// and 1.0 equal; the reader must give nlohmann's types too).
bool Same(const json& a, const json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(), other = b.begin(); it != a.end(); ++it, ++other) {
      if (it.key() != other.key() || !Same(*it, *other)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!Same(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_number_float()) {
    return a.get<double>() == b.get<double>() &&
           std::signbit(a.get<double>()) == std::signbit(b.get<double>());
  }
  return a == b;
}

// What nlohmann makes of `text`, or nullopt when it refuses it.
std::optional<json> Nlohmann(std::string_view text) {
  json value = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return std::nullopt;
  return value;
}

// Whatever the reader accepts, nlohmann accepts with the same value.
void ExpectAgrees(std::string_view text) {
  const std::optional<json> plain = ReadPlainJson(text);
  if (!plain) return;
  const std::optional<json> reference = Nlohmann(text);
  ASSERT_TRUE(reference.has_value()) << "accepted what nlohmann refuses: " << text;
  EXPECT_TRUE(Same(*plain, *reference)) << text << " read as " << plain->dump();
}

TEST(ReadPlainJson, ReadsWhatNlohmannReads) {
  const std::vector<std::string> texts = {
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"tool_name":"Bash","tool_input":{"command":"git status --short"}}}})",
      " \t\r\n[1, -1, 0, -0, 1.5, -0.0, 1e3, 1E-3, 2.5e+10, 18446744073709551615, "
      "-9223372036854775808] ",
      R"({"a":1,"a":2,"b":{"c":[true,false,null,"",{},[]]}})",
      R"("esc \" \\ \/ \b \f \n \r \t \u0000 \u00e9 \u20AC \ud83d\ude00")",
      "\"caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf \x7f\"",
      "1e-400",
      "123",
      "null",
  };
  for (const std::string& text : texts) {
    const std::optional<json> plain = ReadPlainJson(text);
    ASSERT_TRUE(plain.has_value()) << text;
    EXPECT_TRUE(Same(*plain, *Nlohmann(text))) << text;
  }
}

// Everything nlohmann refuses, and what it reads only as a double or past a
// byte-order mark, is left to nlohmann.
TEST(ReadPlainJson, LeavesTheRestToNlohmann) {
  const std::vector<std::string> texts = {
      "",
      " ",
      "{",
      "[1,]",
      R"({"a":1,})",
      R"({"a" 1})",
      "01",
      "-",
      "1.",
      ".5",
      "1e",
      "+1",
      "1e400",
      "-1e400",
      "18446744073709551616",
      "-9223372036854775809",
      "tru",
      "nulls",
      "[1] x",
      "\"unterminated",
      "\"tab\there\"",
      R"("bad \x escape")",
      R"("\u12")",
      R"("\ud800")",
      R"("\udc00")",
      R"("\ud800\u0041")",
      "\"overlong \xc0\xaf\"",
      "\"surrogate \xed\xa0\x80\"",
      "\"past U+10FFFF \xf4\x90\x80\x80\"",
      "\"cut \xe2\x9c\"",
      "\"lone \x80\"",
      "\xef\xbb\xbf{}",
      std::string("[1]\0", 4),
  };
  for (const std::string& text : texts) {
    EXPECT_FALSE(ReadPlainJson(text).has_value()) << text;
  }
}

// Random documents as nlohmann writes them, then each with bytes changed,
// cut or repeated: the reader agrees with nlohmann wherever it answers.
TEST(ReadPlainJson, AgreesWithNlohmannOnRandomAndDamagedText) {
  const std::vector<std::string> kStrings = {
      "", "git status", "say \"hi\"\n", "\t\x01", "caf\xc3\xa9 \xf0\x9f\x98\x80", "a/b\\c"};
  std::mt19937 random(20261129);
  const std::string noise = "{}[]\",:\\ux0-1eE.+tfn \t\n\x01\x80\xc3\xe2\xed\xf0\xff";
  int accepted = 0;
  for (int round = 0; round < 3000; ++round) {
    const json value = RandomJson(random, kStrings);
    const std::string text = value.dump(round % 2 == 0 ? -1 : 2);
    const std::optional<json> plain = ReadPlainJson(text);
    ASSERT_TRUE(plain.has_value()) << text;
    ASSERT_TRUE(Same(*plain, *Nlohmann(text))) << text;
    for (int damage = 0; damage < 5; ++damage) {
      std::string damaged = text;
      const std::size_t at = std::uniform_int_distribution<std::size_t>(0, damaged.size())(random);
      switch (damage % 3) {
        case 0:
          damaged.insert(at, 1, noise[at % noise.size()]);
          break;
        case 1:
          damaged.erase(at, 1);
          break;
        default:
          damaged = damaged.substr(0, at) + damaged.substr(at / 2);
      }
      if (ReadPlainJson(damaged)) ++accepted;
      ExpectAgrees(damaged);
    }
  }
  EXPECT_GT(accepted, 0);  // some damage still leaves JSON: both sides were compared
}

}  // namespace
}  // namespace togmal::util
