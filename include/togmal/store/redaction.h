#pragma once
/// Removes secrets from text before it is stored or logged (audit entries,
/// evidence, allow grants, malformed hook input, log lines): the one redactor.
/// By meaning, from config/redaction.yaml (compiled into constant tables at
/// build time): tokens by their prefix (sk-, AKIA, ghp_, xoxb-, AIza, npm_, …),
/// the values of options and setters that take secrets (`--password X`,
/// `gh secret set … --body X`, `mysql -pX`, `aws configure set
/// aws_secret_access_key X`, …) and of secret-named keys in assignments, .env,
/// ini, YAML and JSON text (`DB_PASS=X`, `password: X`, `"apiKey": "X"`). By
/// shape, in code: private key blocks, URL passwords, Bearer tokens, JWTs,
/// Slack webhooks, `-u user:X`. Plain string scanning, except those shapes'
/// patterns, each compiled only when a text holds its trigger: a process that
/// redacts `git status` compiles none.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace togmal::store {

/// What replaces a secret.
inline constexpr std::string_view kRedacted = "[REDACTED]";

/// `text` with every recognised secret replaced by kRedacted (a prefix that
/// says what it was, such as `Bearer ` or `API_KEY=`, is kept).
std::string RedactSecrets(std::string_view text);

/// Redacts `text` in place; whether anything was replaced.
bool RedactSecretsIn(std::string& text);

/// Redacts `value` in place: every string, every member name that holds a
/// token, and the whole value of any member whose name looks secret
/// (`password`, `api_key`, `token`, …). What is stored is usually our own
/// JSON, so nothing is rebuilt unless a member name must change.
void RedactSecretsIn(nlohmann::json& value);

/// A copy of `value` redacted as RedactSecretsIn does.
nlohmann::json RedactSecretsInJson(const nlohmann::json& value);

}  // namespace togmal::store
