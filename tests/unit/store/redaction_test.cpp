#include "togmal/store/redaction.h"

#include <gtest/gtest.h>

#include <string>

#include "redaction_tables.h"

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

// Secrets known by meaning (config/redaction.yaml): the value an option or a
// setter takes, the value of a secret-named key, a token by its prefix. Each
// of issue 19's examples, then the same secret written other ways.
INSTANTIATE_TEST_SUITE_P(
    ByMeaning, Redaction,
    ::testing::Values(
        // Values given to options and subcommands that take secrets.
        RedactionCase{"aws_configure_set",
                      "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG",
                      "aws configure set aws_secret_access_key [REDACTED]"},
        RedactionCase{"aws_configure_set_profile",
                      "aws configure set default.aws_secret_access_key abc123 --profile dev",
                      "aws configure set default.aws_secret_access_key [REDACTED] --profile dev"},
        RedactionCase{"aws_configure_set_session_token",
                      "aws --profile p configure set aws_session_token 'IQo Jb3'",
                      "aws --profile p configure set aws_session_token [REDACTED]"},
        RedactionCase{"gh_secret_body", "gh secret set DEPLOY --body s3cr3tvalue",
                      "gh secret set DEPLOY --body [REDACTED]"},
        RedactionCase{"gh_secret_body_equals", "gh secret set DEPLOY --body=s3cr3tvalue",
                      "gh secret set DEPLOY --body=[REDACTED]"},
        RedactionCase{"gh_secret_b_separate", "gh secret set DEPLOY -b \"two words\" --repo o/r",
                      "gh secret set DEPLOY -b [REDACTED] --repo o/r"},
        RedactionCase{"gh_secret_b_attached", "/usr/bin/gh secret set DEPLOY -bs3cr3tvalue",
                      "/usr/bin/gh secret set DEPLOY -b[REDACTED]"},
        RedactionCase{"npm_auth_token_setter",
                      "npm config set //registry.npmjs.org/:_authToken abc123def",
                      "npm config set //registry.npmjs.org/:_authToken [REDACTED]"},
        RedactionCase{"npm_auth_token_assignment",
                      "npm config set //registry.npmjs.org/:_authToken=abc123def",
                      "npm config set //registry.npmjs.org/:_authToken=[REDACTED]"},
        RedactionCase{"npmrc_auth", "//npm.pkg.github.com/:_auth=dXNlcjpwYXNz",
                      "//npm.pkg.github.com/:_auth=[REDACTED]"},
        RedactionCase{"password_option_equals", "mysql --password=hunter2 app",
                      "mysql --password=[REDACTED] app"},
        RedactionCase{"mysql_attached_p", "sudo /usr/bin/mysql -uroot -phunter2 -e 'select 1'",
                      "sudo /usr/bin/mysql -uroot -p[REDACTED] -e 'select 1'"},
        RedactionCase{"mysql_p_alone_prompts", "mysql -u root -p app", "mysql -u root -p app"},
        RedactionCase{"pgpassword", "PGPASSWORD=hunter2 psql -h db app",
                      "PGPASSWORD=[REDACTED] psql -h db app"},
        RedactionCase{"docker_login", "docker login -u me -p hunter2 registry.example.com",
                      "docker login -u me -p [REDACTED] registry.example.com"},
        RedactionCase{"redis_cli", "redis-cli -h cache -a hunter2 ping",
                      "redis-cli -h cache -a [REDACTED] ping"},
        RedactionCase{"openssl_passin", "openssl rsa -in k.pem -passin pass:hunter2 -out o",
                      "openssl rsa -in k.pem -passin [REDACTED] -out o"},
        RedactionCase{"kubectl_from_literal",
                      "kubectl create secret generic db --from-literal=pw=hunter2",
                      "kubectl create secret generic db --from-literal=[REDACTED]"},
        RedactionCase{"az_login", "az login --service-principal -u app -p hunter2 --tenant t",
                      "az login --service-principal -u app -p [REDACTED] --tenant t"},
        RedactionCase{"command_in_our_own_reason",
                      "togmal L2: x. (`gh secret set D --body s3cr3tvalue`) (togmal allow AB12)",
                      "togmal L2: x. (`gh secret set D --body [REDACTED]`) (togmal allow AB12)"},
        RedactionCase{"token_option", "vercel deploy --token abc123",
                      "vercel deploy --token [REDACTED]"},
        RedactionCase{"setter_any_name", "dotnet user-secrets set \"Db:Conn\" 'Server=x;Pwd=y'",
                      "dotnet user-secrets set \"Db:Conn\" [REDACTED]"},
        RedactionCase{"setter_any_name_assignments", "fly secrets set A=hunter2 B=\"x y\"",
                      "fly secrets set A=[REDACTED] B=[REDACTED]"},
        // Values of secret-named keys in .env, ini, YAML and JSON content.
        RedactionCase{"dotenv_laravel",
                      "DB_PASS=hunter2\nAPP_KEY=base64:AbCdEf0123456789+/=\n"
                      "MAILGUN_KEY=key-0123456789abcdef0123456789abcdef\nAPP_NAME=shop\n",
                      "DB_PASS=[REDACTED]\nAPP_KEY=[REDACTED]\nMAILGUN_KEY=[REDACTED]\n"
                      "APP_NAME=shop\n"},
        RedactionCase{"dotenv_export_quoted", "export DB_PASSWORD='two words'\nexport PORT=80",
                      "export DB_PASSWORD=[REDACTED]\nexport PORT=80"},
        RedactionCase{"dotenv_empty_value", "DB_PASS=\nDB_HOST=x", "DB_PASS=\nDB_HOST=x"},
        RedactionCase{"yaml_password", "database:\n  password: hunter2\n  user: app",
                      "database:\n  password: [REDACTED]\n  user: app"},
        RedactionCase{"json_api_key", "{\"apiKey\": \"abc123\", \"name\": \"x\"}",
                      "{\"apiKey\": [REDACTED], \"name\": \"x\"}"},
        RedactionCase{"json_text_inside_a_string", "{\\\"password\\\":\\\"hunter2\\\"}",
                      "{\\\"password\\\":[REDACTED]}"},
        RedactionCase{"ini_secret", "[db]\nsecret = hunter2\nhost = x",
                      "[db]\nsecret = [REDACTED]\nhost = x"},
        RedactionCase{"azure_connection_string",
                      "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abc+def==;x",
                      "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=[REDACTED];x"},
        RedactionCase{"azure_sas_signature", "https://a.blob.core.windows.net/c?sv=1&sig=abc%2B",
                      "https://a.blob.core.windows.net/c?sv=1&sig=[REDACTED]"},
        // Known token prefixes, bare.
        RedactionCase{"npm_token", "echo npm_abcdefghijklmnopqrstuvwxyz0123456789 > t",
                      "echo [REDACTED] > t"},
        RedactionCase{"github_classic", "x ghp_abcdefghijklmnopqrstuvwxyz0123", "x [REDACTED]"},
        RedactionCase{"slack_bot", "x xoxb-123456789012-abcdefghij", "x [REDACTED]"},
        RedactionCase{"mailgun", "k=key-0123456789abcdef0123456789abcdef", "k=[REDACTED]"},
        RedactionCase{"sendgrid", "SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456",
                      "[REDACTED]"},
        RedactionCase{"digitalocean",
                      "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
                      "[REDACTED]"},
        RedactionCase{"aws_key_id_exact_length_only", "AKIAIOSFODNN7EXAMPLE1 AKIAIOSFODNN7EXAMPLE",
                      "AKIAIOSFODNN7EXAMPLE1 [REDACTED]"},
        RedactionCase{"prefix_inside_a_word_untouched",
                      "mynpm_abcdefghijklmnopqrstuvwxyz0123456789",
                      "mynpm_abcdefghijklmnopqrstuvwxyz0123456789"},
        // Ordinary text that mentions secrets keeps every word.
        RedactionCase{"commit_message", "git commit -m \"fix: password reset emails\"",
                      "git commit -m \"fix: password reset emails\""},
        RedactionCase{"git_log_author", "git log --author=alice -p --since=2.weeks",
                      "git log --author=alice -p --since=2.weeks"},
        RedactionCase{"git_diff_p", "git diff -p HEAD~1 -- src", "git diff -p HEAD~1 -- src"},
        RedactionCase{"gh_pr_body", "gh pr create --title t --body \"rotate the token\"",
                      "gh pr create --title t --body \"rotate the token\""},
        RedactionCase{"npm_registry_setter", "npm config set registry https://r.example.com/",
                      "npm config set registry https://r.example.com/"},
        RedactionCase{"aws_region_setter", "aws configure set region eu-west-1",
                      "aws configure set region eu-west-1"},
        RedactionCase{"comparison", "if password == expected: ok()",
                      "if password == expected: ok()"},
        RedactionCase{"non_secret_keys", "PRIMARY_KEY=id\nsort_key: name\nkey: value\nAUTHOR=me",
                      "PRIMARY_KEY=id\nsort_key: name\nkey: value\nAUTHOR=me"},
        RedactionCase{"password_option_prefix", "app --password-stdin < f",
                      "app --password-stdin < f"},
        // A file and line whose folders hold a secret-like part (a temporary
        // folder's random name) keep the line; the last part still names.
        RedactionCase{"path_and_line", "/tmp/togmal-test-Pc7gPW/config/rules.yaml:3: rule x",
                      "/tmp/togmal-test-Pc7gPW/config/rules.yaml:3: rule x"},
        RedactionCase{"path_named_secret", "config/db_password: hunter2 ok",
                      "config/db_password: [REDACTED] ok"}),
    [](const auto& test_info) { return std::string(test_info.param.name); });

// Inputs where the scans meet each other, recorded from the redactor as it
// was before its scans were made cheaper (a4b2d3d: a lower-case copy per
// text searched once per trigger, a comparison with every token prefix at
// each word start, a string per word): the same output, byte for byte.
// Overlapping secrets, UTF-8 and invalid bytes, names inside JSON text and
// inside JSON stored as a string, quoted and escaped command words.
INSTANTIATE_TEST_SUITE_P(
    SameAsBefore, Redaction,
    ::testing::Values(
        RedactionCase{"plain_command", "git status --short", "git status --short"},
        RedactionCase{"overlapping_bearer_token_url",
                      "curl -H 'Authorization: Bearer sk-abcdefghijklmnopqrstuvwx' "
                      "https://user:pa55word@host/x",
                      "curl -H 'Authorization: Bearer [REDACTED]' https://user:[REDACTED]@host/x"},
        RedactionCase{
            "token_inside_assignment",
            "export API_KEY=sk-proj-ABCDEFGHIJKLMNOPQRSTUV DB_PASSWORD='p w' && mysql -uroot "
            "-pS3cret db",
            "export API_KEY=[REDACTED] DB_PASSWORD=[REDACTED] && mysql -uroot -p[REDACTED] db"},
        RedactionCase{"utf8_around_secrets",
                      "echo 'caf\xc3\xa9 \xe2\x9c\x93' && TOKEN=\xc3\xbcn\xc3\xaf"
                      "c\xc3\xb8"
                      "d\xc3\xa9\xe2\x82\xac gh secret set X --body \"s3cr3t value\"",
                      "echo 'caf\xc3\xa9 \xe2\x9c\x93' && TOKEN=[REDACTED] gh secret set X --body "
                      "[REDACTED]"},
        RedactionCase{
            "json_keys_in_text",
            "{\"apiKey\": \"abc123\", \"nested\": {\"password\":\"x\\\"y\"}, \"name\": \"ok\"}",
            "{\"apiKey\": [REDACTED], \"nested\": {\"password\":[REDACTED]}, \"name\": \"ok\"}"},
        RedactionCase{"json_as_escaped_string",
                      "{\\\"token\\\": \\\"abc\\\", \\\"user\\\": \\\"me\\\"}",
                      "{\\\"token\\\": [REDACTED], \\\"user\\\": \\\"me\\\"}"},
        RedactionCase{
            "pem_then_more",
            "a -----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY----- b DB_PASS=x",
            "a [REDACTED] b DB_PASS=[REDACTED]"},
        RedactionCase{"mixed_case_bearer", "BeArEr xyz.abc and bearer   tok==",
                      "BeArEr [REDACTED] and bearer   [REDACTED]"},
        RedactionCase{"jwt",
                      "id "
                      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_"
                      "XgL0n3I9PlFUP0THsR8U end",
                      "id [REDACTED] end"},
        RedactionCase{"slack_webhook",
                      "curl -X POST https://hooks.slack.com/services/T000/B000/XXXXabc -d x",
                      "curl -X POST https://hooks.slack.com/services/[REDACTED] -d x"},
        RedactionCase{"curl_user",
                      "curl -u admin:hunter2 https://x && curl --user me:'pass word' y && curl "
                      "--user a@b:c z",
                      "curl -u admin:[REDACTED] https://x && curl --user me:[REDACTED] y && curl "
                      "--user a@b:c z"},
        RedactionCase{
            "setters",
            "aws configure set aws_secret_access_key ABCDEF && git config user.password hunter2 && "
            "heroku config:set SECRET=1 OTHER=\"2 3\"",
            "aws configure set aws_secret_access_key [REDACTED] && git config user.password "
            "[REDACTED] && heroku config:set SECRET=[REDACTED] OTHER=[REDACTED]"},
        RedactionCase{"quoted_command_words",
                      "/usr/bin/mysql -p'quoted pass' -h host; \"mysql\" -pX; my\\sql -pY; sshpass "
                      "-p\\ secret ssh host",
                      "/usr/bin/mysql -p[REDACTED] -h host; \"mysql\" -p[REDACTED]; my\\sql "
                      "-p[REDACTED]; sshpass -p[REDACTED] ssh host"},
        RedactionCase{"unclosed_quote", "npm's settings --password=abc and --token xyz",
                      "npm's settings --password=[REDACTED] and --token [REDACTED]"},
        RedactionCase{"openssl", "openssl enc -pass pass:foo -k bar -passin=env:X",
                      "openssl enc -pass [REDACTED] -k [REDACTED] -passin=[REDACTED]"},
        RedactionCase{"logins",
                      "docker login -u me -p t0ken registry; kubectl create secret generic x "
                      "--from-literal=key=value",
                      "docker login -u me -p [REDACTED] registry; kubectl create secret generic x "
                      "--from-literal=[REDACTED]"},
        RedactionCase{"adjacent_tokens",
                      "ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa xoxb-1234567890-abcdefghij "
                      "AKIAABCDEFGHIJKLMNOP AKIAABCDEFGHIJKLMNOPQ xghp_aaaaaaaaaaaaaaaaaaaaaaaaa",
                      "[REDACTED] [REDACTED] [REDACTED] AKIAABCDEFGHIJKLMNOPQ "
                      "xghp_aaaaaaaaaaaaaaaaaaaaaaaaa"},
        RedactionCase{"paths_are_not_names", "/tmp/aPW/rules.yaml:3: x and x/db_password: hunter2",
                      "/tmp/aPW/rules.yaml:3: x and x/db_password: [REDACTED]"},
        RedactionCase{"comparisons", "a == b != c <= d password := x pw==y",
                      "a == b != c <= d password := x pw==y"},
        RedactionCase{"empty", "", ""}, RedactionCase{"short", "L0", "L0"},
        RedactionCase{"already_redacted", "password=[REDACTED] token: [REDACTED]",
                      "password=[REDACTED] token: [REDACTED]"},
        RedactionCase{
            "dotenv",
            "DB_PASS=x\nSECRET_KEY = \"y z\"\n# comment\nAPI_TOKEN: 'q'\nPUBLIC_KEY=ok\nsortKey=k",
            "DB_PASS=[REDACTED]\nSECRET_KEY = [REDACTED]\n# comment\nAPI_TOKEN: "
            "[REDACTED]\nPUBLIC_KEY=ok\nsortKey=k"},
        RedactionCase{"invalid_utf8", "pw=\xff\xfe secret \xc3 AKIA\xc3",
                      "pw=[REDACTED] secret \xc3 AKIA\xc3"},
        RedactionCase{"tabs_and_controls", "mysql\t-pX\tdb\r\nsshpass\x0b-p\x0cz ssh",
                      "mysql\t-p[REDACTED]\tdb\r\nsshpass\x0b-p\x0cz ssh"},
        RedactionCase{"many_commands",
                      "a; b | c && mysql -pX; (sshpass -p y ssh h) `mysql -pZ` || redis-cli -a pw",
                      "a; b | c && mysql -p[REDACTED]; (sshpass -p [REDACTED] ssh h) `mysql "
                      "-p[REDACTED]` || redis-cli -a [REDACTED]"},
        RedactionCase{"url_in_reason", "togmal L2: fetches a URL (`curl https://u:p@h/`)",
                      "togmal L2: fetches a URL (`curl https://u:[REDACTED]@h/`)"},
        RedactionCase{"trigger_at_end", "x -u", "x -u"},
        RedactionCase{"colon_needed", "curl -u admin hunter2", "curl -u admin hunter2"},
        RedactionCase{"backslash_quote_value",
                      "{\\\"password\\\": \\\"a b\\\"} and \"secret\": \"q\\\"r\"",
                      "{\\\"password\\\": [REDACTED]} and \"secret\": [REDACTED]"},
        RedactionCase{"camel_case_names",
                      "apiKey=1 clientSecret=2 dbPw=3 authHeader=4 hashKey=5 myKey=6",
                      "apiKey=[REDACTED] clientSecret=[REDACTED] dbPw=[REDACTED] "
                      "authHeader=[REDACTED] hashKey=5 myKey=[REDACTED]"}),
    [](const auto& test_info) { return std::string(test_info.param.name); });

// Each token prefix of config/redaction.yaml, with the fewest characters it
// needs, is redacted whole; one character fewer is left alone.
TEST(RedactionTables, EveryTokenPrefixIsRecognisedFromItsMinimumLength) {
  ASSERT_FALSE(redaction::kTables.token_prefixes.empty());
  for (const redaction::TokenPrefix& token : redaction::kTables.token_prefixes) {
    // 'A' and '7' belong to every character class.
    std::string body;
    for (std::size_t i = 0; i < token.min_length; ++i) body += (i % 2 == 0) ? 'A' : '7';
    const std::string whole = std::string(token.prefix) + body;
    EXPECT_EQ(RedactSecrets("x " + whole + " y"), "x [REDACTED] y") << whole;
    const std::string short_one = whole.substr(0, whole.size() - 1);
    EXPECT_EQ(RedactSecrets("x " + short_one + " y"), "x " + short_one + " y") << short_one;
  }
}

TEST(RedactionJson, ASecretNamedMemberInMalformedInputTextIsRedacted) {
  // Hook input that is not JSON is stored as its text (a JSON string): the
  // member names inside it are found by the text scan, not by the JSON walk.
  const nlohmann::json stored = {
      {"malformed_input", nlohmann::json("{\"tool_input\":{\"password\":\"hunter2\"},").dump()}};
  EXPECT_EQ(RedactSecretsInJson(stored)["malformed_input"].get<std::string>().find("hunter2"),
            std::string::npos);
}

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

TEST(RedactionJson, ATokenUsedAsAMemberNameIsRedactedAndNoValueIsLost) {
  const std::string token = "ghp_" + std::string(36, 'a');
  const std::string other = "ghp_" + std::string(36, 'b');
  nlohmann::json value = {{"headers", {{token, "x"}, {other, "y"}, {"plain", 1}}}};
  RedactSecretsIn(value);
  const std::string stored = value.dump();
  EXPECT_EQ(stored.find("ghp_a"), std::string::npos) << stored;
  EXPECT_EQ(stored.find("ghp_b"), std::string::npos) << stored;
  ASSERT_EQ(value["headers"].size(), 3u) << stored;  // two names became one: both kept
  EXPECT_EQ(value["headers"]["[REDACTED]"], "x");
  EXPECT_EQ(value["headers"]["[REDACTED] #2"], "y");
  EXPECT_EQ(value["headers"]["plain"], 1);
}

TEST(Redaction, AnApostropheInProseDoesNotHideTheCommandAfterIt) {
  const std::string reason =
      "togmal L2: changes npm's settings for every project. "
      "(`npm config set //registry.npmjs.org/:_authToken npmAuthZZ05`)";
  const std::string stored = RedactSecrets(reason);
  EXPECT_EQ(stored.find("npmAuthZZ05"), std::string::npos) << stored;
  EXPECT_NE(stored.find("npm's settings"), std::string::npos) << stored;
}

TEST(RedactionJson, InPlaceSaysWhetherTextChanged) {
  std::string text = "export API_KEY=abc123secret";
  EXPECT_TRUE(RedactSecretsIn(text));
  EXPECT_EQ(text, "export API_KEY=[REDACTED]");
  EXPECT_FALSE(RedactSecretsIn(text));  // already redacted: nothing more
  std::string plain = "git status --short";
  EXPECT_FALSE(RedactSecretsIn(plain));
  EXPECT_EQ(plain, "git status --short");
}

TEST(RedactionJson, NonStringsPassThrough) {
  EXPECT_EQ(RedactSecretsInJson(nullptr), nullptr);
  EXPECT_EQ(RedactSecretsInJson(42), 42);
}

}  // namespace
}  // namespace togmal::store
