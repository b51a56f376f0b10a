#pragma once
/// Removes secrets from text before it is stored in the audit trail: API keys
/// (sk-…, AKIA…, ghp_…, xox…-…), Bearer tokens, passwords in URLs, private key
/// blocks and `.env`-style `NAME=value` assignments whose name looks secret.
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
