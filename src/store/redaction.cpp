#include "togmal/store/redaction.h"

#include <re2/re2.h>

#include <cctype>
#include <memory>
#include <mutex>
#include <vector>

namespace togmal::store {

namespace {

struct SecretPattern {
  const char* pattern;
  const char* rewrite;  // \1 keeps the part that says what the secret was
  // Lower-case substrings, '|'-separated, one of which any match contains.
  // Text without any of them skips the pattern, and the pattern is compiled
  // only when some text has one: a hook call for `git status` compiles none.
  std::string_view triggers;
  // Characters one of which any match contains ("" when none is needed).
  std::string_view needs_one_of = {};
  // Assignments: a match has a trigger inside a word followed (after spaces)
  // by one of `needs_one_of`. Our own reasons say "togmal L2: … (secrets,
  // keys or credentials)", and compiling the assignment pattern for them
  // cost a hook call a quarter of its instructions.
  bool assignment = false;
};

// Most specific first: a key inside an assignment is replaced by its own
// pattern, and the assignment pattern then leaves "[REDACTED]" as it is.
constexpr SecretPattern kSecretPatterns[] = {
    // PEM and PGP private key blocks, also cut off before their END line.
    {R"(-----BEGIN[A-Z ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END[A-Z ]*PRIVATE KEY(?: BLOCK)?-----|\z))",
     "[REDACTED]", "-----begin"},
    {R"(([A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@]*:)[^@\s/]+@)", "\\1[REDACTED]@", "://"},
    {R"((?i)(\bbearer\s+)[A-Za-z0-9._~+/\-]+=*)", "\\1[REDACTED]", "bearer"},
    // JSON Web Tokens: base64url header and payload (both JSON objects), signature.
    {R"(\beyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{8,})", "[REDACTED]", "eyj"},
    // OpenAI and Anthropic (sk-…, sk-proj-…, sk-ant-…), Stripe (sk_live_, rk_test_, …).
    {R"(\bsk-[A-Za-z0-9_\-]{16,})", "[REDACTED]", "sk-"},
    {R"(\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,})", "[REDACTED]", "k_live_|k_test_"},
    {R"(\b(?:AKIA|ASIA)[0-9A-Z]{16}\b)", "[REDACTED]", "akia|asia"},
    {R"(\bgh[pousr]_[A-Za-z0-9]{20,})", "[REDACTED]", "ghp_|gho_|ghu_|ghs_|ghr_"},
    {R"(\bgithub_pat_[A-Za-z0-9_]{20,})", "[REDACTED]", "github_pat_"},
    // GitLab personal, deploy, runner, trigger and OAuth tokens.
    {R"(\bgl(?:pat|dt|rt|ptt|soat|ft|cbt)-[A-Za-z0-9_\-]{20,})", "[REDACTED]",
     "glpat-|gldt-|glrt-|glptt-|glsoat-|glft-|glcbt-"},
    {R"(\bxox[abeoprs]-[A-Za-z0-9\-]{10,})", "[REDACTED]", "xox"},
    {R"(\bxapp-[0-9]-[A-Za-z0-9\-]{10,})", "[REDACTED]", "xapp-"},
    {R"((hooks\.slack\.com/services/)[A-Za-z0-9/]+)", "\\1[REDACTED]", "hooks.slack.com"},
    // Google API keys and OAuth access tokens.
    {R"(\bAIza[0-9A-Za-z_\-]{35})", "[REDACTED]", "aiza"},
    {R"(\bya29\.[0-9A-Za-z_\-]{20,})", "[REDACTED]", "ya29."},
    // Hugging Face.
    {R"(\bhf_[A-Za-z0-9]{30,})", "[REDACTED]", "hf_"},
    // Passwords on command lines: mysql -pSECRET (no space: -p alone prompts),
    // sshpass -p X, --password X, curl -u user:X.
    {R"((?i)(\b(?:mysql[a-z_-]*|mariadb[a-z_-]*)\b[^\n|;&]*?\s-p)("[^"\n]*"|'[^'\n]*'|[^\s"'-][^\s]*))",
     "\\1[REDACTED]", "mysql|mariadb"},
    {R"((\bsshpass\s+-p\s*)("[^"\n]*"|'[^'\n]*'|\S+))", "\\1[REDACTED]", "sshpass"},
    {R"((?i)(--pass(?:word|wd|phrase)?\s+)("[^"\n]*"|'[^'\n]*'|\S+))", "\\1[REDACTED]", "--pass"},
    {R"((\s(?:-u|--user)\s+[^\s:@/]+:)("[^"\n]*"|'[^'\n]*'|[^\s'"]+))", "\\1[REDACTED]",
     "-u |--user ", ":"},
    {R"((?i)(\b[A-Za-z0-9_-]*(?:secret|token|passw(?:or)?d|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)[A-Za-z0-9_-]*\s*[=:]\s*)("[^"\n]*"|'[^'\n]*'|[^\s"'#;&|]+))",
     "\\1[REDACTED]", "secret|token|passw|api|access|private|credential", "=:", true},
};

// Object member names whose string values are secrets as a whole.
constexpr SecretPattern kSecretKey = {
    R"((?i)secret|token|passw(?:or)?d|api[_-]?key|access[_-]?key|private[_-]?key|credentials?|authorization|cookie)",
    "", "secret|token|passw|api|access|private|credential|authorization|cookie"};

RE2::Options Options() {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(8 << 20);
  return options;
}

/// One pattern, compiled the first time a text passes its trigger check.
class LazyPattern {
 public:
  explicit LazyPattern(const SecretPattern& source) : source_(source) {}

  const SecretPattern& source() const { return source_; }

  const RE2& Get() const {
    std::call_once(once_,
                   [this] { compiled_ = std::make_unique<RE2>(source_.pattern, Options()); });
    return *compiled_;
  }

 private:
  const SecretPattern& source_;
  mutable std::once_flag once_;
  mutable std::unique_ptr<RE2> compiled_;
};

struct Patterns {
  std::vector<std::unique_ptr<LazyPattern>> secrets;
  LazyPattern secret_key{kSecretKey};
};

const Patterns& AllPatterns() {
  // Never destroyed: a short-lived hook process should not pay for tearing
  // down what it is about to drop anyway.
  static const Patterns* const patterns = [] {
    auto* all = new Patterns;
    for (const SecretPattern& secret : kSecretPatterns) {
      all->secrets.push_back(std::make_unique<LazyPattern>(secret));
    }
    return all;
  }();
  return *patterns;
}

std::string Lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
}

// Whether the word around the trigger found at `at` is followed, after any
// spaces, by one of `wanted`.
bool WordFollowedBy(std::string_view text, std::size_t at, std::string_view wanted) {
  std::size_t i = at;
  while (i < text.size() && IsWordChar(text[i])) ++i;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) != 0) ++i;
  return i < text.size() && wanted.find(text[i]) != std::string_view::npos;
}

bool MayMatch(const SecretPattern& pattern, std::string_view lower_text) {
  if (!pattern.needs_one_of.empty() &&
      lower_text.find_first_of(pattern.needs_one_of) == std::string_view::npos) {
    return false;
  }
  std::string_view triggers = pattern.triggers;
  while (!triggers.empty()) {
    const std::size_t bar = triggers.find('|');
    const std::string_view trigger = triggers.substr(0, bar);
    for (std::size_t at = lower_text.find(trigger); at != std::string_view::npos;
         at = lower_text.find(trigger, at + 1)) {
      if (!pattern.assignment || WordFollowedBy(lower_text, at, pattern.needs_one_of)) return true;
    }
    if (bar == std::string_view::npos) break;
    triggers.remove_prefix(bar + 1);
  }
  return false;
}

bool IsSecretKey(const std::string& key) {
  const LazyPattern& secret_key = AllPatterns().secret_key;
  return MayMatch(secret_key.source(), Lower(key)) && RE2::PartialMatch(key, secret_key.Get());
}

}  // namespace

std::string RedactSecrets(std::string_view text) {
  std::string result(text);
  const std::string lower = Lower(text);
  for (const auto& lazy : AllPatterns().secrets) {
    // Replacements only shorten secrets to "[REDACTED]", so a trigger absent
    // from the original text is absent from the result too.
    if (!MayMatch(lazy->source(), lower)) continue;
    const RE2& pattern = lazy->Get();
    // A pattern that failed to compile is a programming error the unit tests
    // catch; skipping it here keeps the hook alive.
    if (!pattern.ok()) continue;
    RE2::GlobalReplace(&result, pattern, lazy->source().rewrite);
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
    for (const auto& [key, item] : value.items()) {
      if (item.is_string() && !item.get_ref<const std::string&>().empty() && IsSecretKey(key)) {
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
