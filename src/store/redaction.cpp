#include "togmal/store/redaction.h"

#include <re2/re2.h>

#include <memory>
#include <vector>

namespace togmal::store {

namespace {

struct SecretPattern {
  const char* pattern;
  const char* rewrite;  // \1 keeps the part that says what the secret was
};

// Most specific first: a key inside an assignment is replaced by its own
// pattern, and the assignment pattern then leaves "[REDACTED]" as it is.
constexpr SecretPattern kSecretPatterns[] = {
    {R"(-----BEGIN[A-Z ]*PRIVATE KEY-----(?s:.*?)(?:-----END[A-Z ]*PRIVATE KEY-----|\z))",
     "[REDACTED]"},
    {R"(([A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@]*:)[^@\s/]+@)", "\\1[REDACTED]@"},
    {R"((?i)(\bbearer\s+)[A-Za-z0-9._~+/\-]+=*)", "\\1[REDACTED]"},
    {R"(\bsk-[A-Za-z0-9_\-]{16,})", "[REDACTED]"},
    {R"(\b(?:AKIA|ASIA)[0-9A-Z]{16}\b)", "[REDACTED]"},
    {R"(\bgh[pousr]_[A-Za-z0-9]{20,})", "[REDACTED]"},
    {R"(\bgithub_pat_[A-Za-z0-9_]{20,})", "[REDACTED]"},
    {R"(\bxox[abeoprs]-[A-Za-z0-9\-]{10,})", "[REDACTED]"},
    {R"((?i)(\b[A-Za-z0-9_]*(?:secret|token|passw(?:or)?d|api_?key|access_?key|private_?key|credentials?)[A-Za-z0-9_]*\s*[=:]\s*)("[^"\n]*"|'[^'\n]*'|[^\s"'#;&|]+))",
     "\\1[REDACTED]"},
};

// Object member names whose string values are secrets as a whole.
constexpr const char* kSecretKeyPattern =
    R"((?i)secret|token|passw(?:or)?d|api_?key|access_?key|private_?key|credentials?|authorization|cookie)";

struct CompiledPatterns {
  std::vector<std::unique_ptr<RE2>> secrets;
  std::vector<const char*> rewrites;
  std::unique_ptr<RE2> secret_key;
};

RE2::Options Options() {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(8 << 20);
  return options;
}

const CompiledPatterns& Patterns() {
  // Compiled on first use only (the hook may never need them).
  static const CompiledPatterns* const compiled = [] {
    auto* patterns = new CompiledPatterns;
    for (const SecretPattern& secret : kSecretPatterns) {
      patterns->secrets.push_back(std::make_unique<RE2>(secret.pattern, Options()));
      patterns->rewrites.push_back(secret.rewrite);
    }
    patterns->secret_key = std::make_unique<RE2>(kSecretKeyPattern, Options());
    return patterns;
  }();
  return *compiled;
}

}  // namespace

std::string RedactSecrets(std::string_view text) {
  std::string result(text);
  const CompiledPatterns& patterns = Patterns();
  for (std::size_t i = 0; i < patterns.secrets.size(); ++i) {
    const RE2& pattern = *patterns.secrets[i];
    // A pattern that failed to compile is a programming error the unit tests
    // catch; skipping it here keeps the hook alive.
    if (!pattern.ok()) continue;
    RE2::GlobalReplace(&result, pattern, patterns.rewrites[i]);
  }
  return result;
}

nlohmann::json RedactSecretsInJson(const nlohmann::json& value) {
  if (value.is_string()) return RedactSecrets(value.get_ref<const std::string&>());
  if (value.is_array()) {
    nlohmann::json result = nlohmann::json::array();
    for (const auto& item : value) result.push_back(RedactSecretsInJson(item));
    return result;
  }
  if (value.is_object()) {
    nlohmann::json result = nlohmann::json::object();
    const RE2& secret_key = *Patterns().secret_key;
    for (const auto& [key, item] : value.items()) {
      if (item.is_string() && !item.get_ref<const std::string&>().empty() &&
          RE2::PartialMatch(key, secret_key)) {
        result[key] = std::string(kRedacted);
      } else {
        result[key] = RedactSecretsInJson(item);
      }
    }
    return result;
  }
  return value;
}

}  // namespace togmal::store
