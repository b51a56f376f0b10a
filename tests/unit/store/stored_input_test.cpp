// What an audit entry keeps of a tool's input: all of it up to the cap, else
// its size, digest and beginning (store/stored_input.h).
#include "togmal/store/stored_input.h"

#include <gtest/gtest.h>

#include "sha256.h"
#include "store_test_support.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"
#include "togmal/util/json_dump.h"
#include "togmal/util/text.h"

namespace togmal::store {
namespace {

using json = nlohmann::json;

TEST(StoredInput, AnInputUpToTheCapIsStoredWhole) {
  const json small = {{"command", "git status"}, {"timeout", 120000}};
  EXPECT_FALSE(OversizeInputRecord(small).has_value());
  EXPECT_EQ(BoundedInput(small), small);
  // Exactly at the cap, measured on the JSON text: {"c":"aaa…"} is 8 bytes
  // of structure around the string.
  const json at_cap = {{"c", std::string(kMaxStoredInputBytes - 8, 'a')}};
  ASSERT_EQ(util::DumpJson(at_cap).size(), kMaxStoredInputBytes);
  EXPECT_FALSE(OversizeInputRecord(at_cap).has_value());
  const json over_cap = {{"c", std::string(kMaxStoredInputBytes - 7, 'a')}};
  EXPECT_TRUE(OversizeInputRecord(over_cap).has_value());
  // Escapes count: 40 KB of control characters is 240 KB of JSON text.
  EXPECT_TRUE(OversizeInputRecord({{"c", std::string(40u << 10, '\x01')}}).has_value());
  // Non-ASCII text is counted as it is written, not by its worst case.
  std::string accents;
  for (int i = 0; i < 15000; ++i) accents += "é";  // 30,000 bytes
  EXPECT_FALSE(OversizeInputRecord({{"c", accents}}).has_value());
}

TEST(StoredInput, AnOversizeInputKeepsItsSizeDigestAndBeginning) {
  const json input = {{"command", "echo " + std::string(1u << 20, 'a')}, {"description", "big"}};
  const std::string text = util::DumpJson(input);
  const auto record = OversizeInputRecord(input);
  ASSERT_TRUE(record.has_value());
  const json& oversize = (*record)["oversize_input"];
  EXPECT_EQ(oversize["bytes"], text.size());
  EXPECT_EQ(oversize["sha256"], Sha256Hex(text)) << "matches a kept copy of the original";
  const std::string command = oversize["cut"]["command"].get<std::string>();
  EXPECT_EQ(command.rfind("echo aaa", 0), 0u);
  EXPECT_LE(command.size(), kStoredInputCutBytes + 8);
  EXPECT_LE(util::DumpJson(*record).size(), kStoredInputCutBytes + 512);
}

TEST(StoredInput, AWideInputKeepsItsFirstMembersAndSaysHowManyWereLeft) {
  json input = json::object();
  for (int i = 0; i < 300000; ++i) input["k" + std::to_string(100000 + i)] = i;
  const auto record = OversizeInputRecord(input);
  ASSERT_TRUE(record.has_value());
  const json& cut = (*record)["oversize_input"]["cut"];
  EXPECT_TRUE(cut.contains("k100000"));
  ASSERT_TRUE(cut.contains("(cut)"));
  EXPECT_NE(cut["(cut)"].get<std::string>().find("more members not kept"), std::string::npos);
  EXPECT_LE(util::DumpJson(*record).size(), kStoredInputCutBytes + 512);

  json list = json::array();
  for (int i = 0; i < 300000; ++i) list.push_back("item");
  const auto listed = OversizeInputRecord({{"files", list}});
  ASSERT_TRUE(listed.has_value());
  const json& kept = (*listed)["oversize_input"]["cut"]["files"];
  EXPECT_NE(kept.back().get<std::string>().find("more elements not kept"), std::string::npos);
  EXPECT_LE(util::DumpJson(*listed).size(), kStoredInputCutBytes + 512);
}

TEST(StoredInput, ASecretAcrossTheEdgeOfTheCutIsRedactedNotHalved) {
  // The AWS key starts a few bytes before the edge of the cut: cut first and
  // redacted after, its first half would no longer look like a key.
  const std::string key = "AKIAIOSFODNN7EXAMPLE";
  const std::string filler(kStoredInputCutBytes - 30, 'x');
  const json input = {{"command", filler + " " + key + " " + std::string(1u << 20, 'y')}};
  const auto record = OversizeInputRecord(input);
  ASSERT_TRUE(record.has_value());
  const std::string cut = (*record)["oversize_input"]["cut"]["command"].get<std::string>();
  EXPECT_EQ(cut.find("AKIA"), std::string::npos) << cut.substr(cut.size() - 60);
}

TEST(StoredInput, TheAuditTrailStoresTheBoundedInputAndStillVerifies) {
  testing::TempDatabase temp;
  Database db = temp.Open();
  AuditLog log(db);
  AuditEntry entry;
  entry.tool_name = "Bash";
  entry.decision = "ask";
  entry.input = {{"command", std::string(2u << 20, 'a')}};
  auto id = log.Append(entry);
  ASSERT_TRUE(id.ok()) << id.error();
  auto stored = log.Tail(1);
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 1u);
  EXPECT_TRUE((*stored)[0].input.contains("oversize_input"));
  EXPECT_LE((*stored)[0].input.dump().size(), kStoredInputCutBytes + 512);
  auto verify = log.Verify();
  ASSERT_TRUE(verify.ok());
  EXPECT_TRUE(verify->ok) << verify->problem;
}

}  // namespace
}  // namespace togmal::store
