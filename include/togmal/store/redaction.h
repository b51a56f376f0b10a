#pragma once
/// Removes secrets from text before it is stored (audit entries and evidence):
/// API keys and tokens (OpenAI/Anthropic sk-…, Stripe sk_live_…, AWS AKIA…,
/// GitHub ghp_…/github_pat_…, GitLab glpat-…, Slack xox…/xapp-… and webhook
/// URLs, Google AIza…/ya29.…, Hugging Face hf_…), JWTs, Bearer tokens,
/// passwords in URLs and on command lines (mysql -pX, sshpass -p, --password,
/// curl -u user:X), PEM and PGP private key blocks, and `.env`-style
/// `NAME=value` assignments whose name looks secret.
/// Patterns are compiled on first use, so a process that never redacts pays
/// nothing.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace togmal::store {

/// What replaces a secret.
inline constexpr std::string_view kRedacted = "[REDACTED]";

/// `text` with every recognised secret replaced by kRedacted (a prefix that
/// says what it was, such as `Bearer ` or `API_KEY=`, is kept).
std::string RedactSecrets(std::string_view text);

/// A copy of `value` with every string redacted, and the whole value of any
/// object member whose name looks secret (`password`, `api_key`, `token`, …).
nlohmann::json RedactSecretsInJson(const nlohmann::json& value);

}  // namespace togmal::store
