// RFC 5424 messages: header, structured data with its escapes, MSG.
#include "togmal/ship/syslog.h"

#include <gtest/gtest.h>

#include "entries.h"

namespace togmal::ship {
namespace {

using testing::Decision;

TEST(SyslogEncoding, HeaderStructuredDataAndMessage) {
  const std::string message =
      EncodeSyslog(Decision(42, "deny", "rm -rf /"), {"devbox", "0.1.0"}, 99);
  // PRI = facility user (1) * 8 + warning (4).
  const std::string header =
      "<12>1 2026-11-27T14:03:05.123456Z devbox togmal 99 deny [togmal@32473 ";
  ASSERT_EQ(message.substr(0, header.size()), header) << message;
  EXPECT_NE(message.find(" decision=\"deny\""), std::string::npos);
  EXPECT_NE(message.find(" seq=\"42\""), std::string::npos);
  EXPECT_NE(message.find(" project=\"/home/dev/proj\""), std::string::npos);
  EXPECT_NE(message.find(" hash=\"" + std::string(64, 'b') + "\""), std::string::npos);
  EXPECT_TRUE(message.ends_with("] {\"command\":\"rm -rf /\"}")) << message;
}

TEST(SyslogEncoding, SeverityFollowsTheDecision) {
  EXPECT_TRUE(EncodeSyslog(Decision(1, "ask", "x"), {"h", "v"}, 1).starts_with("<13>1 "));
  EXPECT_TRUE(EncodeSyslog(Decision(1, "allow", "x"), {"h", "v"}, 1).starts_with("<14>1 "));
  EXPECT_TRUE(EncodeSyslog(Decision(1, "pass", "x"), {"h", "v"}, 1).starts_with("<14>1 "));
}

TEST(SyslogEncoding, ParamValuesEscapeQuoteBackslashAndBracket) {
  EXPECT_EQ(EscapeSdValue(R"(a"b\c]d[e)"), R"(a\"b\\c\]d[e)");
  store::AuditEntry entry = Decision(3, "ask", "x");
  entry.session = R"(s"e]s\)";
  const std::string message = EncodeSyslog(entry, {"h", "v"}, 1);
  EXPECT_NE(message.find(R"( session="s\"e\]s\\")"), std::string::npos) << message;
}

TEST(SyslogEncoding, HeaderFieldsArePrintableTokens) {
  EXPECT_EQ(SyslogToken("my host", 255), "my_host");
  EXPECT_EQ(SyslogToken("", 32), "-");
  EXPECT_EQ(SyslogToken("abcdef", 3), "abc");
  const std::string message = EncodeSyslog(Decision(1, "", "x"), {"", "v"}, 1);
  // No decision: the kind is the MSGID; no host name: NILVALUE.
  EXPECT_TRUE(message.starts_with("<14>1 2026-11-27T14:03:05.123456Z - togmal 1 decision ["))
      << message;
}

TEST(SyslogEncoding, OctetCountingPrefixesTheLengthInBytes) {
  EXPECT_EQ(OctetCounted("<14>1 x é"), "10 <14>1 x é");
}

}  // namespace
}  // namespace togmal::ship
