// `togmal audit …` and `togmal stats` through the built binary.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "process.h"
#include "store_test_support.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"
#include "togmal/store/taxonomy.h"

namespace togmal::store {
namespace {

using nlohmann::json;
using togmal::testing::ProcessOutput;
using togmal::testing::RunProcess;
using togmal::testing::TogmalBinary;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

class StoreCli : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = temp_.Open();
    AuditLog log(db);
    for (int i = 1; i <= 5; ++i) {
      AuditEntry entry;
      entry.session = "s";
      entry.tool_name = "Bash";
      entry.input = {{"command", "echo " + std::to_string(i)}};
      entry.decision = i == 3 ? "deny" : "allow";
      entry.level = i == 3 ? "L3" : "L0";
      ASSERT_TRUE(log.Append(entry).ok());
    }
    Taxonomy taxonomy(db);
    ASSERT_TRUE(taxonomy
                    .Submit({.category = "unsupported_claims",
                             .prompt = "p",
                             .response = "r",
                             .description = "Claims 97% without any source",
                             .severity = "moderate",
                             .reason = "",
                             .client = "cli-test"},
                            &log)
                    .ok());
  }
  ProcessOutput Run(std::vector<std::string> arguments, togmal::testing::EnvChanges env = {}) {
    arguments.insert(arguments.begin(), TogmalBinary());
    // Keep the person's own settings and data out of the test.
    env.emplace("XDG_CONFIG_HOME", temp_.dir() + "/config");
    env.emplace("XDG_DATA_HOME", temp_.dir() + "/xdg-data");
    env.emplace("TOGMAL_DB", std::nullopt);
    return RunProcess(arguments, "", env);
  }
  store::testing::TempDatabase temp_;
};

TEST_F(StoreCli, VerifyPassesOnAnIntactTrail) {
  ProcessOutput out = Run({"audit", "verify", "--db", temp_.path()});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find("audit trail OK: 6 entries verified"), std::string::npos) << out.out;
}

TEST_F(StoreCli, VerifyNamesTheTamperedEntryAndExits1) {
  temp_.Raw().exec("UPDATE audit SET decision = 'allow' WHERE id = 3");
  ProcessOutput out = Run({"audit", "verify", "--db", temp_.path()});
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_NE(out.out.find("audit trail BROKEN at entry #3"), std::string::npos) << out.out;
  ProcessOutput as_json = Run({"audit", "verify", "--json", "--db", temp_.path()});
  EXPECT_EQ(as_json.exit_code, 1);
  const json report = json::parse(as_json.out);
  EXPECT_EQ(report["ok"], false);
  EXPECT_EQ(report["broken_id"], 3);
}

TEST_F(StoreCli, DatabaseComesFromTogmalDbWithoutTheOption) {
  ProcessOutput out = Run({"audit", "verify"}, {{"TOGMAL_DB", temp_.path()}});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find("6 entries verified"), std::string::npos);
}

TEST_F(StoreCli, MissingAndCorruptDatabasesAreClearErrors) {
  ProcessOutput missing = Run({"audit", "verify", "--db", temp_.dir() + "/none.db"});
  EXPECT_EQ(missing.exit_code, 66);
  EXPECT_NE(missing.err.find("no database at"), std::string::npos) << missing.err;
  const std::string corrupt = temp_.dir() + "/corrupt.db";
  std::ofstream(corrupt) << std::string(4096, 'z');
  for (const char* command : {"verify", "tail", "export"}) {
    ProcessOutput out = Run({"audit", command, "--db", corrupt});
    EXPECT_EQ(out.exit_code, 1) << command;
    EXPECT_NE(out.err.find("corrupt or not a SQLite database"), std::string::npos)
        << command << ": " << out.err;
  }
  ProcessOutput stats = Run({"stats", "--db", corrupt});
  EXPECT_EQ(stats.exit_code, 1);
  EXPECT_NE(stats.err.find("corrupt"), std::string::npos) << stats.err;
}

TEST_F(StoreCli, TailPrintsTheNewestEntries) {
  ProcessOutput out = Run({"audit", "tail", "-n", "2", "--db", temp_.path()});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto lines = Lines(out.out);
  ASSERT_EQ(lines.size(), 2u) << out.out;
  EXPECT_EQ(lines[0].rfind("#5 ", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("allow L0 Bash"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("echo 5"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1].rfind("#6 ", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find("evidence"), std::string::npos) << lines[1];

  ProcessOutput as_json = Run({"audit", "tail", "-n", "3", "--json", "--db", temp_.path()});
  ASSERT_EQ(as_json.exit_code, 0);
  const auto json_lines = Lines(as_json.out);
  ASSERT_EQ(json_lines.size(), 3u);
  EXPECT_EQ(json::parse(json_lines[0])["id"], 4);
  EXPECT_EQ(json::parse(json_lines[2])["hash"].get<std::string>().size(), 64u);
}

// A detail written by another version or edited by hand, with fields of
// other types, is shown as far as it can be, never the end of the command.
TEST_F(StoreCli, TailShowsADetailWithFieldsOfOtherTypes) {
  {
    auto db = temp_.Open();
    AuditLog log(db);
    AuditEntry entry;
    entry.session = "s3";
    entry.tool_name = "Bash";
    entry.input = {{"command", "make"}};
    entry.decision = "allow";
    entry.level = "L1";
    entry.detail = {{"cwd", 5}, {"reason", {"a", "list"}}, {"allowed_by", {{"grant_id", "x"}}}};
    ASSERT_TRUE(log.Append(entry).ok());
    entry.detail = {{"cwd", "/work/odd"}, {"reason", "fine"}, {"allow_code", 7}};
    ASSERT_TRUE(log.Append(entry).ok());
  }
  ProcessOutput out = Run({"audit", "tail", "-n", "2", "--db", temp_.path()});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto lines = Lines(out.out);
  ASSERT_GE(lines.size(), 3u) << out.out;
  EXPECT_NE(lines[0].find("allow L1 Bash"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("grant #0"), std::string::npos) << lines[1];
  EXPECT_NE(out.out.find("odd"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("fine"), std::string::npos) << out.out;
}

// A decision reads as what a person asks of it: when, where, which tool,
// what was decided and why, and the code that would let it through.
TEST_F(StoreCli, TailShowsProjectReasonAndCodeAndFilters) {
  {
    auto db = temp_.Open();
    AuditLog log(db);
    auto decide = [&log](std::string cwd, std::string tool, std::string decision, std::string level,
                         std::string command, std::string reason) {
      AuditEntry entry;
      entry.session = "s2";
      entry.tool_name = std::move(tool);
      entry.input = {{"command", std::move(command)}};
      entry.decision = std::move(decision);
      entry.level = std::move(level);
      entry.detail = {
          {"cwd", std::move(cwd)}, {"reason", std::move(reason)}, {"allow_code", "K7QF"}};
      ASSERT_TRUE(log.Append(entry).ok());
    };
    decide("/work/shop", "Bash", "deny", "L3", "git push --force origin main", "rewrites history");
    decide("/work/shop/api", "Bash", "pass", "L2", "curl https://example.com", "fetches");
    decide("/work/shopping", "Write", "allow", "L1", "x", "inside the project");
  }
  ProcessOutput all = Run({"audit", "tail", "-n", "3", "--db", temp_.path()});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  auto lines = Lines(all.out);
  ASSERT_EQ(lines.size(), 6u) << all.out;  // two lines per decision
  EXPECT_NE(lines[0].find("deny  L3 Bash"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("shop"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("git push --force origin main"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("rewrites history"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("togmal allow K7QF"), std::string::npos) << lines[1];

  // The project is a directory and what is below it, not a name prefix.
  ProcessOutput project =
      Run({"audit", "tail", "--project", "/work/shop", "--json", "--db", temp_.path()});
  ASSERT_EQ(project.exit_code, 0) << project.err;
  lines = Lines(project.out);
  ASSERT_EQ(lines.size(), 2u) << project.out;
  EXPECT_EQ(json::parse(lines[0])["decision"], "deny");
  EXPECT_EQ(json::parse(lines[1])["decision"], "pass");

  ProcessOutput denied =
      Run({"audit", "export", "--decision", "deny,pass", "--level", "L3", "--db", temp_.path()});
  ASSERT_EQ(denied.exit_code, 0) << denied.err;
  lines = Lines(denied.out);
  ASSERT_EQ(lines.size(), 2u) << denied.out;  // entry 3 of the fixture and the push
  for (const std::string& line : lines) EXPECT_EQ(json::parse(line)["level"], "L3");

  ProcessOutput writes = Run({"audit", "export", "--tool", "Write", "--session", "s2", "--since",
                              "1h", "--db", temp_.path()});
  ASSERT_EQ(writes.exit_code, 0) << writes.err;
  EXPECT_EQ(Lines(writes.out).size(), 1u) << writes.out;

  ProcessOutput old = Run({"audit", "tail", "--until", "2020-01-01", "--db", temp_.path()});
  ASSERT_EQ(old.exit_code, 0) << old.err;
  EXPECT_TRUE(old.out.empty()) << old.out;

  ProcessOutput wrong = Run({"audit", "tail", "--since", "yesterday", "--db", temp_.path()});
  EXPECT_EQ(wrong.exit_code, 64);
  EXPECT_NE(wrong.err.find("'yesterday' is not a time"), std::string::npos) << wrong.err;
  ProcessOutput bad_decision = Run({"audit", "tail", "--decision", "maybe", "--db", temp_.path()});
  EXPECT_NE(bad_decision.exit_code, 0);
}

TEST_F(StoreCli, TailFollowShowsNewEntries) {
  togmal::testing::ChildProcess follow(
      {TogmalBinary(), "audit", "tail", "-n", "1", "--follow", "--db", temp_.path()});
  auto first = follow.ReadLine(std::chrono::seconds(10));
  ASSERT_TRUE(first.has_value()) << follow.Stderr();
  EXPECT_EQ(first->rfind("#6 ", 0), 0u) << *first;
  {
    auto db = temp_.Open();
    AuditEntry entry;
    entry.kind = AuditKind::kConfigChange;
    entry.detail = {{"file", "rules.yaml"}};
    ASSERT_TRUE(AuditLog(db).Append(entry).ok());
  }
  auto next = follow.ReadLine(std::chrono::seconds(10));
  ASSERT_TRUE(next.has_value()) << follow.Stderr();
  EXPECT_EQ(next->rfind("#7 ", 0), 0u) << *next;
  EXPECT_NE(next->find("config_change"), std::string::npos) << *next;
  follow.Kill(SIGTERM);
  follow.Wait();
}

TEST_F(StoreCli, ExportWritesTheWholeChainAsJsonl) {
  ProcessOutput out = Run({"audit", "export", "--format", "jsonl", "--db", temp_.path()});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto lines = Lines(out.out);
  ASSERT_EQ(lines.size(), 6u);
  std::string previous(kGenesisHash);
  for (const std::string& line : lines) {
    json entry = json::parse(line);
    EXPECT_EQ(entry["prev_hash"], previous);
    previous = entry["hash"];
    // Anyone can re-verify an export: canonical JSON without the chain
    // fields, then SHA-256 over it plus prev_hash.
    const std::string prev_hash = entry["prev_hash"];
    const std::string hash = entry["hash"];
    entry.erase("prev_hash");
    entry.erase("hash");
    AuditEntry parsed;
    parsed.id = entry["id"];
    parsed.time = entry["time"];
    parsed.kind = *ParseAuditKind(entry["kind"].get<std::string>());
    parsed.session = entry["session"];
    parsed.tool_name = entry["tool_name"];
    parsed.input = entry["input"];
    parsed.decision = entry["decision"];
    parsed.level = entry["level"];
    parsed.rule = entry["rule"];
    parsed.source = entry["source"];
    parsed.reasons = entry["reasons"];
    parsed.latency_us = entry["latency_us"];
    parsed.detail = entry["detail"];
    EXPECT_EQ(CanonicalJson(parsed), entry.dump());
    EXPECT_EQ(ComputeEntryHash(parsed, prev_hash), hash);
  }
  ProcessOutput to_file = Run({"audit", "export", "--format", "jsonl", "-o",
                               temp_.dir() + "/out.jsonl", "--db", temp_.path()});
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  std::ifstream file(temp_.dir() + "/out.jsonl");
  std::stringstream content;
  content << file.rdbuf();
  EXPECT_EQ(content.str(), out.out);
  ProcessOutput csv = Run({"audit", "export", "--format", "csv", "--db", temp_.path()});
  EXPECT_EQ(csv.exit_code, 64);
}

TEST_F(StoreCli, PruneHonoursRetention) {
  ProcessOutput keep = Run({"audit", "prune", "--days", "30", "--db", temp_.path()});
  EXPECT_EQ(keep.exit_code, 0) << keep.err;
  EXPECT_NE(keep.out.find("nothing older than 30 days"), std::string::npos) << keep.out;
  temp_.Raw().exec(
      "UPDATE audit SET time = '2000-01-01T00:00:00.000000Z' WHERE id <= 2");  // breaks 1, 2
  ProcessOutput pruned = Run({"audit", "prune", "--days", "30", "--db", temp_.path()});
  EXPECT_EQ(pruned.exit_code, 0) << pruned.err;
  EXPECT_NE(pruned.out.find("pruned 2 entries (through #2)"), std::string::npos) << pruned.out;
  // The edited entries are gone; what remains verifies from the checkpoint.
  ProcessOutput verify = Run({"audit", "verify", "--db", temp_.path()});
  EXPECT_EQ(verify.exit_code, 0) << verify.out;
  EXPECT_NE(verify.out.find("entries up to #2 pruned"), std::string::npos) << verify.out;
}

TEST_F(StoreCli, StatsShowsTaxonomyAndAuditCounts) {
  ProcessOutput out = Run({"stats", "--db", temp_.path()});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find("taxonomy (submitted evidence): 1 of 1000 entries"), std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("unsupported_claims: 1"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("audit trail: 6 entries"), std::string::npos) << out.out;
  // The agent's decisions come first, apart from the taxonomy: today, 7 days, all.
  EXPECT_LT(out.out.find("agent decisions"), out.out.find("failure-mode taxonomy")) << out.out;
  EXPECT_NE(out.out.find("  allow                  4        4        4"), std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("  deny                   1        1        1"), std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("last 7 days by level: L0 4 L1 0 L2 0 L3 1"), std::string::npos)
      << out.out;

  ProcessOutput as_json = Run({"stats", "--json", "--db", temp_.path()});
  ASSERT_EQ(as_json.exit_code, 0) << as_json.err;
  const json stats = json::parse(as_json.out);
  EXPECT_EQ(stats["taxonomy"]["used"], 1);
  EXPECT_EQ(stats["taxonomy"]["by_severity"]["moderate"], 1);
  EXPECT_EQ(stats["audit"]["by_kind"]["evidence"], 1);
  EXPECT_EQ(stats["audit"]["total"], 6);
  EXPECT_EQ(stats["decisions"]["today"]["allow"]["L0"], 4);
  EXPECT_EQ(stats["decisions"]["last_7_days"]["deny"]["L3"], 1);
  EXPECT_EQ(stats["decisions"]["all"]["deny"]["L3"], 1);
}

// `togmal evidence --judged`: a false alarm about the prompt of a pair is
// stored as such; the default is the TEXT given.
TEST_F(StoreCli, EvidenceNamesTheJudgedText) {
  ProcessOutput on_prompt =
      Run({"evidence", "--db", temp_.path(), "--category", "unsupported_claims", "--verdict",
           "false_positive", "--response", "--context", "How many people use Linux?", "--judged",
           "prompt", "About 4 % of desktops, by StatCounter's 2024 figures."});
  ASSERT_EQ(on_prompt.exit_code, 0) << on_prompt.err;
  ProcessOutput plain = Run({"evidence", "--db", temp_.path(), "--category", "unsupported_claims",
                             "Everyone knows 90 % of startups fail."});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ProcessOutput wrong = Run({"evidence", "--db", temp_.path(), "--category", "unsupported_claims",
                             "--judged", "response", "a prompt without any response"});
  EXPECT_EQ(wrong.exit_code, 65) << wrong.out;
  EXPECT_NE(wrong.err.find("no response was given"), std::string::npos) << wrong.err;

  auto db = temp_.Open();
  auto page = Taxonomy(db).Query({.limit = 10});
  ASSERT_TRUE(page) << page.error();
  ASSERT_EQ(page->entries.size(), 3u);
  EXPECT_EQ(page->entries[0].judged, "prompt");
  EXPECT_EQ(page->entries[0].response, "-");
  EXPECT_EQ(page->entries[1].judged, "prompt");
  EXPECT_EQ(page->entries[1].prompt, "How many people use Linux?");
  EXPECT_EQ(page->entries[1].verdict, "false_positive");
  EXPECT_EQ(page->entries[2].judged, "response");
}

TEST_F(StoreCli, StatsUsesTheConfiguredCapacity) {
  std::filesystem::create_directories(temp_.dir() + "/config/togmal");
  std::ofstream(temp_.dir() + "/config/togmal/settings.yaml") << "taxonomy:\n  capacity: 50\n";
  ProcessOutput out = Run({"stats", "--db", temp_.path()});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find("failure-mode taxonomy (submitted evidence): 1 of 50 entries"),
            std::string::npos)
      << out.out;
  std::ofstream(temp_.dir() + "/config/togmal/settings.yaml") << "taxonomy:\n  capacity: x\n";
  ProcessOutput bad = Run({"stats", "--db", temp_.path()});
  EXPECT_EQ(bad.exit_code, 78);
  EXPECT_NE(bad.err.find("settings.yaml:2: taxonomy.capacity must be a number"), std::string::npos)
      << bad.err;
}

// Every command opens the database the same careful way: a FIFO (or a
// device) is refused at once, naming the path and why, instead of blocking
// the reader forever. Generous timeouts: a hang fails the test, not the run.
TEST_F(StoreCli, AFifoDatabaseIsRefusedByEveryCommandWithoutHanging) {
  const std::string fifo = temp_.dir() + "/fifo.db";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::vector<std::vector<std::string>> commands = {
      {"audit", "verify", "--db", fifo},
      {"audit", "export", "--db", fifo},
      {"audit", "tail", "--db", fifo},
      {"stats", "--db", fifo},
      {"audit", "prune", "--days", "0", "--db", fifo}};
  for (const auto& command : commands) {
    ProcessOutput out = Run(command);
    EXPECT_NE(out.exit_code, 0) << command[1];
    EXPECT_LT(out.exit_code, 128) << command[1] << " was killed: it hung";
    EXPECT_NE(out.err.find(fifo + " is a FIFO"), std::string::npos)
        << command[1] << ": " << out.err;
  }
  // The status line is run by Claude Code all the time: one short line, exit 0.
  ProcessOutput status = Run({"statusline", "--no-color", "--db", fifo});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("audit unreadable"), std::string::npos) << status.out;
  EXPECT_EQ(status.out.find('\n'), status.out.size() - 1) << status.out;
}

}  // namespace
}  // namespace togmal::store
