// Rules togmal writes into the user's rule file (`togmal allow --always`):
// the user's text stays, the item loads, removal is exact.
#include "togmal/rules/user_rule_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "process.h"
#include "togmal/rules/rule_loader.h"

namespace togmal::rules {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

constexpr const char* kItem =
    "  - id: allow-code-K7Q2-4\n"
    "    priority: 1\n"
    "    conditions:\n"
    "      tool_name: {regex: \"^Bash$\"}\n"
    "      parameters:\n"
    "        \"command\": {regex: \"^npm\\\\ publish$\"}\n"
    "    action: ALLOW\n"
    "    reason: let through\n";

TEST(UserRuleFile, CreatesTheFileAndRemovesExactlyWhatItAdded) {
  togmal::testing::TempDir dir;
  const fs::path file = fs::path(dir.path()) / "config/togmal/rules.yaml";
  ASSERT_TRUE(AppendUserRule(file, "togmal allow K7Q2 --always", kItem).ok());
  auto loaded = ReadRuleFile(file, Layer::kUser, true);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  ASSERT_EQ(loaded->rules.size(), 1u);
  EXPECT_EQ(loaded->rules[0].id, "allow-code-K7Q2-4");
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  auto removed = RemoveUserRule(file, "allow-code-K7Q2-4");
  ASSERT_TRUE(removed.ok());
  EXPECT_TRUE(*removed);
  EXPECT_EQ(Read(file), "rules:\n");
  EXPECT_FALSE(*RemoveUserRule(file, "allow-code-K7Q2-4"));
}

TEST(UserRuleFile, KeepsTheUsersCommentsAndRules) {
  togmal::testing::TempDir dir;
  const fs::path file = fs::path(dir.path()) / "rules.yaml";
  const std::string mine =
      "# my rules\n"
      "rules:\n"
      "  # no pushes to main\n"
      "  - id: mine\n"
      "    conditions: {tool_name: Bash, command: '^git push.*main'}\n"
      "    action: DENY\n"
      "    reason: not main\n"
      "\n";
  std::ofstream(file) << mine;
  ASSERT_TRUE(AppendUserRule(file, "togmal allow K7Q2 --always", kItem).ok());
  const std::string after = Read(file);
  EXPECT_EQ(after.rfind(mine.substr(0, mine.size() - 1), 0), 0u) << after;
  auto loaded = ReadRuleFile(file, Layer::kUser, true);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded->rules.size(), 2u);
  ASSERT_TRUE(RemoveUserRule(file, "allow-code-K7Q2-4").ok());
  EXPECT_EQ(Read(file), mine.substr(0, mine.size() - 1));
}

// YAML lets a key's list start at column 0; the new item must join the
// list at the user's depth (items of one list share their indentation).
TEST(UserRuleFile, JoinsAListWrittenAtTheUsersDepth) {
  togmal::testing::TempDir dir;
  const fs::path file = fs::path(dir.path()) / "rules.yaml";
  for (const std::string indent : {"", "    "}) {
    const std::string mine = "rules:\n" + indent + "- id: mine\n" + indent +
                             "  conditions: {tool_name: Bash}\n" + indent + "  action: ASK\n" +
                             indent + "  reason: look first\n";
    std::ofstream(file, std::ios::trunc) << mine;
    auto appended = AppendUserRule(file, "togmal allow K7Q2 --always", kItem);
    ASSERT_TRUE(appended.ok()) << "indent '" << indent << "': " << appended.error();
    const std::string after = Read(file);
    EXPECT_NE(after.find("\n" + indent + "- id: allow-code-K7Q2-4\n" + indent + "  priority: 1\n"),
              std::string::npos)
        << after;
    auto loaded = ReadRuleFile(file, Layer::kUser, true);
    ASSERT_TRUE(loaded.ok()) << loaded.error();
    ASSERT_EQ(loaded->rules.size(), 2u) << after;
    auto removed = RemoveUserRule(file, "allow-code-K7Q2-4");
    ASSERT_TRUE(removed.ok() && *removed);
    EXPECT_EQ(Read(file), mine);
  }
}

TEST(UserRuleFile, WritesThroughALinkAndKeepsTheFilesMode) {
  togmal::testing::TempDir dir;
  const fs::path real = fs::path(dir.path()) / "dotfiles/rules.yaml";
  const fs::path link = fs::path(dir.path()) / "config/rules.yaml";
  fs::create_directories(real.parent_path());
  fs::create_directories(link.parent_path());
  std::ofstream(real) << "rules:\n";
  fs::permissions(real, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read,
                  fs::perm_options::replace);
  fs::create_symlink(real, link);
  ASSERT_TRUE(AppendUserRule(link, "togmal allow K7Q2 --always", kItem).ok());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_NE(Read(real).find("allow-code-K7Q2-4"), std::string::npos);
  EXPECT_EQ(fs::status(real).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  ASSERT_TRUE(*RemoveUserRule(link, "allow-code-K7Q2-4"));
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(Read(real), "rules:\n");
}

TEST(UserRuleFile, RefusesAFileItCannotAppendToSafely) {
  togmal::testing::TempDir dir;
  const fs::path file = fs::path(dir.path()) / "rules.yaml";
  const std::string theirs = "rules: []\n";
  std::ofstream(file) << theirs;
  auto flow = AppendUserRule(file, "m", kItem);
  ASSERT_FALSE(flow.ok());
  EXPECT_NE(flow.error().find("block list"), std::string::npos) << flow.error();
  std::ofstream(file, std::ios::trunc)
      << "rules:\n  - {id: a, conditions: {}, action: ASK}\nx: 1\n";
  EXPECT_FALSE(AppendUserRule(file, "m", kItem).ok());
  // An item that would not load leaves the file as it was.
  std::ofstream(file, std::ios::trunc) << theirs.substr(0, 6) << "\n";
  auto bad = AppendUserRule(file, "m", "  - id: x\n    action: PERHAPS\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(Read(file), "rules:\n");
}

}  // namespace
}  // namespace togmal::rules
