#include "togmal/mcp/reply_once.h"

#include <gtest/gtest.h>

#include <vector>

namespace togmal::mcp {
namespace {

struct Captured {
  std::vector<json> responses;
  ReplyOnce::Sink Sink() {
    return [this](json response) { responses.push_back(std::move(response)); };
  }
};

TEST(ReplyOnceTest, ResultIsSentOnce) {
  Captured captured;
  {
    ReplyOnce reply(7, "tools/list", captured.Sink());
    reply.Result({{"tools", json::array()}});
    EXPECT_TRUE(reply.replied());
  }
  ASSERT_EQ(captured.responses.size(), 1u);
  EXPECT_EQ(captured.responses[0],
            json({{"jsonrpc", "2.0"}, {"id", 7}, {"result", {{"tools", json::array()}}}}));
}

TEST(ReplyOnceTest, ForgottenReplyBecomesInternalError) {
  Captured captured;
  { ReplyOnce reply("a", "tools/call", captured.Sink()); }
  ASSERT_EQ(captured.responses.size(), 1u);
  EXPECT_EQ(captured.responses[0]["id"], "a");
  EXPECT_EQ(captured.responses[0]["error"]["code"], -32603);
  EXPECT_NE(captured.responses[0]["error"]["message"].get<std::string>().find("tools/call"),
            std::string::npos);
}

TEST(ReplyOnceTest, SecondReplyIsDropped) {
  Captured captured;
  {
    ReplyOnce reply(1, "ping", captured.Sink());
    reply.Result(json::object());
    reply.Error(-32603, "late");
    reply.Result({{"again", true}});
  }
  ASSERT_EQ(captured.responses.size(), 1u);
  EXPECT_TRUE(captured.responses[0].contains("result"));
}

TEST(ReplyOnceTest, MovedFromOwesNothing) {
  Captured captured;
  {
    ReplyOnce first(1, "ping", captured.Sink());
    ReplyOnce second(std::move(first));
    second.Error(-32602, "bad", {{"x", 1}});
  }
  ASSERT_EQ(captured.responses.size(), 1u);
  EXPECT_EQ(captured.responses[0]["error"],
            json({{"code", -32602}, {"message", "bad"}, {"data", {{"x", 1}}}}));
}

TEST(ReplyOnceTest, AssigningOverAnUnansweredReplyAnswersIt) {
  Captured captured;
  {
    ReplyOnce first(1, "a", captured.Sink());
    ReplyOnce second(2, "b", captured.Sink());
    first = std::move(second);  // request 1 can no longer be answered
    first.Result(json::object());
  }
  ASSERT_EQ(captured.responses.size(), 2u);
  EXPECT_EQ(captured.responses[0]["id"], 1);
  EXPECT_EQ(captured.responses[0]["error"]["code"], -32603);
  EXPECT_EQ(captured.responses[1]["id"], 2);
  EXPECT_TRUE(captured.responses[1].contains("result"));
}

}  // namespace
}  // namespace togmal::mcp
