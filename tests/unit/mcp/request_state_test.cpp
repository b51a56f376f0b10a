#include "togmal/mcp/request_state.h"

#include <gtest/gtest.h>

namespace togmal::mcp {
namespace {

using json = nlohmann::json;

RequestState Sample() {
  RequestState state;
  state.tool = "togmal_test_ask";
  state.arguments_digest = RequestStateCodec::DigestArguments({{"kind", "sampling"}});
  state.answers = {{"answer1", {{"action", "accept"}}}};
  state.asked = {"answer2"};
  return state;
}

TEST(RequestStateTest, RoundTrips) {
  RequestStateCodec codec;
  auto decoded = codec.Decode(codec.Encode(Sample()));
  ASSERT_TRUE(decoded.ok()) << decoded.error();
  EXPECT_EQ(decoded->tool, "togmal_test_ask");
  EXPECT_EQ(decoded->arguments_digest, Sample().arguments_digest);
  EXPECT_EQ(decoded->answers, Sample().answers);
  EXPECT_EQ(decoded->asked, std::vector<std::string>{"answer2"});
}

TEST(RequestStateTest, DigestIsCanonical) {
  EXPECT_EQ(RequestStateCodec::DigestArguments(json::parse(R"({"a":1,"b":[1,2]})")),
            RequestStateCodec::DigestArguments(json::parse(R"({ "b":[1,2], "a":1 })")));
  EXPECT_NE(RequestStateCodec::DigestArguments({{"a", 1}}),
            RequestStateCodec::DigestArguments({{"a", 2}}));
}

TEST(RequestStateTest, EveryAlteredCharacterIsDetected) {
  RequestStateCodec codec;
  std::string token = codec.Encode(Sample());
  for (std::size_t i = 0; i < token.size(); i += 7) {
    std::string altered = token;
    altered[i] = altered[i] == 'A' ? 'B' : 'A';
    if (altered == token) continue;
    EXPECT_FALSE(codec.Decode(altered).ok()) << "position " << i;
  }
}

TEST(RequestStateTest, ForgedPayloadFailsIntegrity) {
  RequestStateCodec codec;
  RequestStateCodec other;  // another process: another key
  std::string mine = codec.Encode(Sample());
  RequestState forged = Sample();
  forged.answers = {{"answer1", "attacker"}};
  std::string theirs = other.Encode(forged);
  // Their payload with my signature, and their token as a whole.
  std::string spliced = theirs.substr(0, theirs.find('.')) + mine.substr(mine.find('.'));
  for (const std::string& token : {spliced, theirs}) {
    auto decoded = codec.Decode(token);
    ASSERT_FALSE(decoded.ok());
    EXPECT_NE(decoded.error().find("integrity"), std::string::npos) << decoded.error();
  }
}

TEST(RequestStateTest, MalformedIsNamed) {
  RequestStateCodec codec;
  for (const char* token : {"", "nodot", "!!!.###", "abc."}) {
    auto decoded = codec.Decode(token);
    ASSERT_FALSE(decoded.ok()) << token;
    EXPECT_TRUE(decoded.error().find("malformed") != std::string::npos ||
                decoded.error().find("integrity") != std::string::npos)
        << decoded.error();
  }
}

TEST(RequestStateTest, ExpiredIsRejected) {
  RequestStateCodec codec(std::chrono::milliseconds(-1));
  auto decoded = codec.Decode(codec.Encode(Sample()));
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.error().find("expired"), std::string::npos) << decoded.error();
}

}  // namespace
}  // namespace togmal::mcp
