#include "togmal/store/redaction.h"

#include <gtest/gtest.h>

namespace togmal::store {
namespace {

struct RedactionCase {
  const char* name;
  const char* input;
  const char* expected;
};

class Redaction : public ::testing::TestWithParam<RedactionCase> {};

TEST_P(Redaction, ReplacesTheSecretAndKeepsTheRest) {
  EXPECT_EQ(RedactSecrets(GetParam().input), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Secrets, Redaction,
    ::testing::Values(
        RedactionCase{"anthropic_key", "curl -H 'x-api-key: sk-ant-api03-abcdefghijklmnopqrstuv' x",
                      "curl -H 'x-api-key: [REDACTED]' x"},
        RedactionCase{"openai_key", "OPENAI sk-proj-AbCdEfGhIjKlMnOpQrSt done",
                      "OPENAI [REDACTED] done"},
        RedactionCase{"aws_access_key", "aws AKIAIOSFODNN7EXAMPLE s3 ls", "aws [REDACTED] s3 ls"},
        RedactionCase{"github_token", "git clone https://ghp_abcdefghijklmnopqrstuvwxyz0123@x",
                      "git clone https://[REDACTED]@x"},
        RedactionCase{"github_pat", "token github_pat_11ABCDEFG0123456789_abcdefXYZ",
                      "token [REDACTED]"},
        RedactionCase{"slack_token", "post xoxb-123456789012-abcdefghij now",
                      "post [REDACTED] now"},
        RedactionCase{"bearer", "curl -H 'Authorization: Bearer eyJhbGciOi.payload.sig' u",
                      "curl -H 'Authorization: Bearer [REDACTED]' u"},
        RedactionCase{"url_password", "psql postgres://admin:hunter2@db.local/app",
                      "psql postgres://admin:[REDACTED]@db.local/app"},
        RedactionCase{"private_key",
                      "echo '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE "
                      "KEY-----' > k",
                      "echo '[REDACTED]' > k"},
        RedactionCase{"unterminated_private_key",
                      "x -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk", "x [REDACTED]"},
        RedactionCase{"env_assignment", "DB_PASSWORD=s3cr3t npm start",
                      "DB_PASSWORD=[REDACTED] npm start"},
        RedactionCase{"export_assignment", "export GITHUB_TOKEN=\"abc def\"; ls",
                      "export GITHUB_TOKEN=[REDACTED]; ls"},
        RedactionCase{"dotenv_lines", "API_KEY=abc123\nDEBUG=true\nCLIENT_SECRET='x y'",
                      "API_KEY=[REDACTED]\nDEBUG=true\nCLIENT_SECRET=[REDACTED]"},
        // Each pattern runs only on text holding one of its lower-case
        // triggers; these check the trigger test is case-blind like the pattern.
        RedactionCase{"upper_case_bearer", "AUTHORIZATION: BEARER abc.def-ghi",
                      "AUTHORIZATION: BEARER [REDACTED]"},
        RedactionCase{"mixed_case_assignment", "Db_PassWord=hunter2 ./run",
                      "Db_PassWord=[REDACTED] ./run"},
        RedactionCase{"apikey_without_underscore", "set APIKEY: abc123", "set APIKEY: [REDACTED]"},
        RedactionCase{"api_key_header", "curl -H 'X-Api-Key: abc123' https://api.example.com",
                      "curl -H 'X-Api-Key: [REDACTED]' https://api.example.com"},
        RedactionCase{"upper_case_url_scheme", "HTTPS://user:pw@host/x",
                      "HTTPS://user:[REDACTED]@host/x"},
        RedactionCase{"harmless_text_untouched", "ls -la src && git status",
                      "ls -la src && git status"},
        RedactionCase{"harmless_assignment_untouched", "DEBUG=1 NODE_ENV=production make",
                      "DEBUG=1 NODE_ENV=production make"},
        RedactionCase{"short_sk_prefix_untouched", "task sk-1 done", "task sk-1 done"},
        RedactionCase{"stripe_live", "charge sk_live_4eC39HqLyjWDarjtT1zdp7dc ok",
                      "charge [REDACTED] ok"},
        RedactionCase{"gitlab_pat", "GL glpat-xxxxxxxxxxxxxxxxxxxx1 push", "GL [REDACTED] push"},
        RedactionCase{"slack_app_token", "tok xapp-1-A0123456789-abcdefghijk", "tok [REDACTED]"},
        RedactionCase{"slack_webhook", "curl https://hooks.slack.com/services/T000/B000/XXXXXXXX",
                      "curl https://hooks.slack.com/services/[REDACTED]"},
        RedactionCase{"google_api_key", "key AIzaSyA1234567890abcdefghijklmnopqrstuv end",
                      "key [REDACTED] end"},
        RedactionCase{"google_oauth", "t=ya29.a0AfH6SMBxxxxxxxxxxxxxxxxxxxx go", "t=[REDACTED] go"},
        RedactionCase{"hugging_face", "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH here",
                      "[REDACTED] here"},
        RedactionCase{"jwt", "cookie eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijklmnop x",
                      "cookie [REDACTED] x"},
        RedactionCase{"mysql_password", "mysql -u root -phunter2 app",
                      "mysql -u root -p[REDACTED] app"},
        RedactionCase{"mysqldump_quoted", "mysqldump -p'my pw' db > d.sql",
                      "mysqldump -p[REDACTED] db > d.sql"},
        RedactionCase{"mkdir_p_untouched", "mkdir -p build && ssh -p 22 host",
                      "mkdir -p build && ssh -p 22 host"},
        RedactionCase{"sshpass", "sshpass -p s3cret ssh host", "sshpass -p [REDACTED] ssh host"},
        RedactionCase{"password_flag", "app --password hunter2 run",
                      "app --password [REDACTED] run"},
        RedactionCase{"curl_user", "curl -u admin:hunter2 https://x",
                      "curl -u admin:[REDACTED] https://x"},
        // The assignment pattern is tried only where a trigger's word is
        // followed (after spaces) by = or :; these are the shortcut's edges.
        RedactionCase{"assignment_spaces_before_colon", "MY_ACCESS_TOKEN_V2 \t : abc",
                      "MY_ACCESS_TOKEN_V2 \t : [REDACTED]"},
        RedactionCase{"assignment_after_a_plain_mention", "the secret is SECRET_X= y1",
                      "the secret is SECRET_X= [REDACTED]"},
        RedactionCase{"trigger_inside_a_longer_word", "mysecretvalue=abc",
                      "mysecretvalue=[REDACTED]"},
        RedactionCase{"own_reason_untouched",
                      "togmal L2: '.env' is a sensitive file (secrets, keys or credentials).",
                      "togmal L2: '.env' is a sensitive file (secrets, keys or credentials)."},
        RedactionCase{"colon_elsewhere_untouched", "note: the token was rotated",
                      "note: the token was rotated"},
        RedactionCase{
            "pgp_private_key",
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----",
            "[REDACTED]"}),
    [](const auto& test_info) { return std::string(test_info.param.name); });

TEST(RedactionJson, RedactsStringsDeepAndSecretNamedMembers) {
  const nlohmann::json input = {
      {"command", "curl -u admin:pw https://x -H 'Authorization: Bearer abcdefghij'"},
      {"env", {{"password", "plain words"}, {"max_tokens", 5}, {"path", "/tmp"}}},
      {"list", {"sk-ant-abcdefghijklmnopqrstu", 3}}};
  const nlohmann::json output = RedactSecretsInJson(input);
  EXPECT_EQ(output["command"],
            "curl -u admin:[REDACTED] https://x -H 'Authorization: Bearer [REDACTED]'");
  EXPECT_EQ(output["env"]["password"], "[REDACTED]");
  EXPECT_EQ(output["env"]["max_tokens"], 5);
  EXPECT_EQ(output["env"]["path"], "/tmp");
  EXPECT_EQ(output["list"][0], "[REDACTED]");
  EXPECT_EQ(output["list"][1], 3);
}

TEST(RedactionJson, SecretMemberNamesInAnyCase) {
  const nlohmann::json input = {{"Authorization", "Basic dXNlcjpwYXNz"},
                                {"COOKIE", "session=abc"},
                                {"X-Api-Key", "plain"},
                                {"description", "plain"}};
  const nlohmann::json output = RedactSecretsInJson(input);
  EXPECT_EQ(output["Authorization"], "[REDACTED]");
  EXPECT_EQ(output["COOKIE"], "[REDACTED]");
  EXPECT_EQ(output["X-Api-Key"], "[REDACTED]");  // header spelling, with hyphens
  EXPECT_EQ(output["description"], "plain");
}

TEST(RedactionJson, NonStringsPassThrough) {
  EXPECT_EQ(RedactSecretsInJson(nullptr), nullptr);
  EXPECT_EQ(RedactSecretsInJson(42), 42);
}

}  // namespace
}  // namespace togmal::store
