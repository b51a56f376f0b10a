// Nothing secret is written in clear: secrets planted in tool calls (through
// the hook and through `togmal serve`) and in submitted evidence must appear
// neither in the database file nor in its write-ahead log.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "process.h"
#include "serve_client.h"

namespace togmal::testing {
namespace {

namespace fs = std::filesystem;

// One of each format, each unique so a leak names its format.
const std::vector<std::string>& Secrets() {
  static const std::vector<std::string> secrets = {
      "AKIAZZZZZZZZZZZZZZZ1",
      "wJalrXUtnFEMIK7MDENGbPxRfiCYzzzzzzzzzzz1",  // as aws_secret_access_key=…
      "ghp_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ01",
      "github_pat_11ZZZZZZZZZZZZZZZZZZZZ_zzzzzzzzzzzzzzzz02",
      "sk-proj-ZZZZZZZZZZZZZZZZZZZZZZ03",
      "sk_live_ZZZZZZZZZZZZZZZZZZZZZZ04",
      "xoxb-111111111111-ZZZZZZZZZZ05",
      "glpat-ZZZZZZZZZZZZZZZZZZ06",
      "AIzaZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ07",
      "hf_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ08",
      "urlpassZZ09",    // in https://user:…@host
      "mysqlpassZZ10",  // mysql -p…
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJaWjExIn0.ZZZZZZZZZZZZZZZZZZ11",
      "MIIEpAIBAAKCAQEAzzzzPEMZZ12",  // inside a PEM block
      "lQOYBFpgpZZ13",                // inside a PGP block
  };
  return secrets;
}

std::string Command() {
  const auto& s = Secrets();
  return "export AWS_ACCESS_KEY_ID=" + s[0] + " aws_secret_access_key=" + s[1] +
         " && git push https://" + s[2] + "@github.com/o/r && curl -H 'x: " + s[3] + "' -d " +
         s[4] + " " + s[5] + " " + s[6] + " " + s[7] + " " + s[8] + " " + s[9] +
         " https://user:" + s[10] + "@db.example.com && mysql -u root -p" + s[11] +
         " app && curl -H 'Cookie: t=" + s[12] +
         "' x && printf '-----BEGIN RSA PRIVATE KEY-----\n" + s[13] +
         "\n-----END RSA PRIVATE KEY-----\n-----BEGIN PGP PRIVATE KEY BLOCK-----\n" + s[14] +
         "\n-----END PGP PRIVATE KEY BLOCK-----' > k";
}

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void ExpectNoSecretIn(const fs::path& database) {
  std::string bytes = ReadAll(database) + ReadAll(database.string() + "-wal");
  ASSERT_FALSE(bytes.empty());
  for (const std::string& secret : Secrets()) {
    EXPECT_EQ(bytes.find(secret), std::string::npos) << secret << " was stored in clear";
  }
}

TEST(Secrets, NeverStoredInClearThroughTheHook) {
  TempDir dir;
  const fs::path db = fs::path(dir.path()) / "togmal.db";
  json event = {{"session_id", "s"},
                {"cwd", dir.path()},
                {"hook_event_name", "PreToolUse"},
                {"tool_name", "Bash"},
                {"tool_input", {{"command", Command()}}}};
  auto result =
      RunProcess({TogmalBinary(), "hook"}, event.dump(),
                 {{"TOGMAL_DB", db.string()}, {"XDG_CONFIG_HOME", dir.path() + "/config"}},
                 std::chrono::seconds(60));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  ExpectNoSecretIn(db);
}

TEST(Secrets, NeverStoredInClearThroughServe) {
  TempDir dir;
  const fs::path db = fs::path(dir.path()) / "togmal.db";
  {
    ServeClient serve({}, {{"TOGMAL_DB", db.string()},
                           {"XDG_CONFIG_HOME", dir.path() + "/config"},
                           {"XDG_DATA_HOME", dir.path() + "/data"}});
    serve.Initialize("2025-06-18");
    json checked = serve.Call(ToolCall(1, "togmal_check_tool_call",
                                       {{"tool_name", "Bash"},
                                        {"command", Command()},
                                        {"cwd", dir.path()},
                                        {"response_format", "json"}}));
    ASSERT_TRUE(checked.contains("result")) << checked.dump();
    json stored = serve.Call(ToolCall(2, "togmal_submit_evidence",
                                      {{"category", "dangerous_file_operations"},
                                       {"prompt", "run this: " + Command()},
                                       {"response", "Sure: " + Command()},
                                       {"description", "The agent pasted secrets " + Secrets()[4]},
                                       {"severity", "high"}}));
    ASSERT_TRUE(stored.contains("result")) << stored.dump();
    EXPECT_FALSE(stored["result"].value("isError", false)) << stored.dump();
  }
  ExpectNoSecretIn(db);
}

// Secrets known by meaning rather than shape (issue 19): each value unique,
// so a leak names its case.
struct MeaningCase {
  std::string secret;
  json tool_input;
  std::string tool_name = "Bash";
};

std::vector<MeaningCase> MeaningCases() {
  const auto bash = [](const std::string& secret, const std::string& command) {
    return MeaningCase{secret, {{"command", command}}};
  };
  const auto write = [](const std::string& secret, const std::string& content) {
    return MeaningCase{secret, {{"file_path", "/tmp/p/.env"}, {"content", content}}, "Write"};
  };
  return {
      bash("awsSecretZZ01", "aws configure set aws_secret_access_key awsSecretZZ01"),
      bash("ghBodyZZ02", "gh secret set DEPLOY --body ghBodyZZ02"),
      bash("ghBodyZZ03", "gh secret set DEPLOY --body=ghBodyZZ03"),
      bash("ghBodyZZ04", "gh secret set DEPLOY -bghBodyZZ04"),
      bash("npmAuthZZ05", "npm config set //registry.npmjs.org/:_authToken npmAuthZZ05"),
      bash("npm_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ06",
           "echo npm_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ06"),
      bash("pgPassZZ07", "PGPASSWORD=pgPassZZ07 psql -h db app"),
      bash("mysqlPassZZ08", "mysql -u root -pmysqlPassZZ08 app"),
      bash("curlPassZZ09", "curl -u admin:curlPassZZ09 https://example.com"),
      bash("dockerPassZZ10", "docker login -u me -p dockerPassZZ10 registry.example.com"),
      write("dbPassZZ11", "APP_NAME=shop\nDB_PASS=dbPassZZ11\n"),
      write("base64:appKeyZZ12", "APP_KEY=base64:appKeyZZ12\n"),
      write("key-zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz13",
            "MAILGUN_KEY=key-zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz13\n"),
      write("exportedZZ14", "export API_SECRET=\"exportedZZ14\"\n"),
      write("yamlPassZZ15", "db:\n  password: yamlPassZZ15\n"),
      write("jsonKeyZZ16", "{\"apiKey\": \"jsonKeyZZ16\"}"),
      write("iniSecretZZ17", "[s]\nsecret = iniSecretZZ17\n"),
      bash("xoxb-111111111111-zzzzzzzzzz18", "curl -d token=x xoxb-111111111111-zzzzzzzzzz18"),
  };
}

std::string HookEvent(const std::string& cwd, const std::string& tool_name, const json& input) {
  return json{{"session_id", "s"},
              {"cwd", cwd},
              {"hook_event_name", "PreToolUse"},
              {"tool_name", tool_name},
              {"tool_input", input}}
      .dump();
}

TEST(Secrets, KnownByMeaningNeverStoredExportedOrTailed) {
  TempDir dir;
  const fs::path db = fs::path(dir.path()) / "togmal.db";
  const EnvChanges env = {{"TOGMAL_DB", db.string()},
                          {"XDG_CONFIG_HOME", dir.path() + "/config"},
                          {"XDG_DATA_HOME", dir.path() + "/data"}};
  std::vector<std::string> secrets;
  for (const MeaningCase& call : MeaningCases()) {
    secrets.push_back(call.secret);
    auto result =
        RunProcess({TogmalBinary(), "hook"}, HookEvent(dir.path(), call.tool_name, call.tool_input),
                   env, std::chrono::seconds(60));
    ASSERT_EQ(result.exit_code, 0) << result.err;
  }
  // Hook input that is not JSON, and JSON too deep to take: kept as raw text.
  const std::string malformed_token = "ghp_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ19";
  const std::string malformed_password = "malformedPassZZ20";
  secrets.push_back(malformed_token);
  secrets.push_back(malformed_password);
  auto malformed =
      RunProcess({TogmalBinary(), "hook"},
                 "{\"tool_name\":\"Bash\",\"tool_input\":{\"password\":\"" + malformed_password +
                     "\",\"command\":\"git push " + malformed_token + "\"",
                 env, std::chrono::seconds(60));
  ASSERT_EQ(malformed.exit_code, 0) << malformed.err;
  const std::string deep_token = "sk_live_ZZZZZZZZZZZZZZZZZZZZZZ21";
  const std::string deep_password = "deepPassZZ22";
  secrets.push_back(deep_token);
  secrets.push_back(deep_password);
  auto deep =
      RunProcess({TogmalBinary(), "hook"},
                 "{\"tool_input\":{\"password\":\"" + deep_password + "\",\"t\":\"" + deep_token +
                     "\",\"x\":" + std::string(200, '[') + std::string(200, ']') + "}}",
                 env, std::chrono::seconds(60));
  ASSERT_EQ(deep.exit_code, 0) << deep.err;
  // Ordinary words that mention secrets are kept.
  auto ordinary = RunProcess(
      {TogmalBinary(), "hook"},
      HookEvent(dir.path(), "Bash",
                {{"command", "git commit -m 'fix password reset' && git log --author=alice"}}),
      env, std::chrono::seconds(60));
  ASSERT_EQ(ordinary.exit_code, 0) << ordinary.err;

  const std::string bytes = ReadAll(db) + ReadAll(db.string() + "-wal");
  const fs::path exported = fs::path(dir.path()) / "trail.jsonl";
  auto exporting = RunProcess(
      {TogmalBinary(), "audit", "export", "--format", "jsonl", "-o", exported.string()}, "", env);
  ASSERT_EQ(exporting.exit_code, 0) << exporting.err;
  const std::string export_text = ReadAll(exported);
  auto tail = RunProcess({TogmalBinary(), "audit", "tail", "-n", "100"}, "", env);
  ASSERT_EQ(tail.exit_code, 0) << tail.err;
  auto tail_json = RunProcess({TogmalBinary(), "audit", "tail", "-n", "100", "--json"}, "", env);
  ASSERT_EQ(tail_json.exit_code, 0) << tail_json.err;
  ASSERT_NE(export_text.find("malformed_input"), std::string::npos) << export_text;
  for (const std::string& secret : secrets) {
    EXPECT_EQ(bytes.find(secret), std::string::npos) << secret << " is in the database";
    EXPECT_EQ(export_text.find(secret), std::string::npos) << secret << " is in the export";
    EXPECT_EQ(tail.out.find(secret), std::string::npos) << secret << " is in audit tail";
    EXPECT_EQ(tail_json.out.find(secret), std::string::npos) << secret << " is in tail --json";
  }
  EXPECT_NE(export_text.find("fix password reset"), std::string::npos) << export_text;
  EXPECT_NE(export_text.find("--author=alice"), std::string::npos) << export_text;
  auto verify = RunProcess({TogmalBinary(), "audit", "verify"}, "", env);
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
}

TEST(Secrets, NeverInALogLine) {
  // TOGMAL_LOG's bad value is quoted in a warning: the one redactor runs on it.
  auto result = RunProcess(
      {TogmalBinary(), "version"}, "",
      {{"TOGMAL_LOG", "x ghp_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ23 password=logPassZZ24"}});
  EXPECT_NE(result.err.find("unknown log level"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("ghp_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ23"), std::string::npos)
      << result.err;
  EXPECT_EQ(result.err.find("logPassZZ24"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace togmal::testing
