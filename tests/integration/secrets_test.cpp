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

}  // namespace
}  // namespace togmal::testing
