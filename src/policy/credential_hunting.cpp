// Credential hunting: searching the home directory, its dot-folders or the
// system's configuration for secret words (`grep -ri password ~`, `rg token
// ~/.config`), finding credential-looking files and printing them (`find ~
// -name '*.pem' -exec cat {} +`), reading files whose names say they hold a
// secret (`cat ~/.config/*/token`). What they print goes to the agent: the
// `secrets_output` level (L2; L0 turns the check off). CredentialSearch reads
// a search's patterns and paths (ReadSearch) and judges where it looks.
#include <cctype>

#include "togmal/util/text.h"
#include "walker.h"

namespace togmal::policy {
namespace {

/// Lower-case parts of a search pattern or file name that ask for a secret.
constexpr std::string_view kSecretWords[] = {
    "token",      "secret", "passw",      "passwd", "pwd",    "api_key", "apikey", "api-key",
    "access",     "priv",   "credential", "auth",   "bearer", "aws_",    "ghp_",   "gho_",
    "github_pat", "glpat",  "sk-",        "xox",    "akia",   "begin",   "cookie", "session"};

/// Secret words that are also parts of common words (`keyboard`, `valid_id`):
/// they count only with no letter on either side (`api[_-]?key`, `ssh_key`,
/// `id_*`), so a regular expression that spells a key name in parts counts.
constexpr std::string_view kSecretWholeWords[] = {"key", "keys", "id_"};

/// Whether `text` holds `word` (lower case), ignoring case; no allocation:
/// it runs on every word of a search.
bool HoldsIgnoringCase(std::string_view text, std::string_view word) {
  if (word.size() > text.size()) return false;
  for (std::size_t i = 0; i + word.size() <= text.size(); ++i) {
    std::size_t k = 0;
    while (k < word.size() && util::AsciiLower(text[i + k]) == word[k]) {
      ++k;
    }
    if (k == word.size()) return true;
  }
  return false;
}

bool IsLetter(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

/// Whether `text` holds `word` (lower case) with no letter just before it,
/// nor just after it when it ends in a letter (`id_rsa` holds `id_`),
/// ignoring case.
bool HoldsWordIgnoringCase(std::string_view text, std::string_view word) {
  for (std::size_t i = 0; i + word.size() <= text.size(); ++i) {
    if (i > 0 && IsLetter(text[i - 1])) continue;
    const std::size_t end = i + word.size();
    if (end < text.size() && IsLetter(word.back()) && IsLetter(text[end])) continue;
    if (HoldsIgnoringCase(text.substr(i, word.size()), word)) return true;
  }
  return false;
}

bool SecretWord(std::string_view text) {
  for (std::string_view word : kSecretWords) {
    if (HoldsIgnoringCase(text, word)) return true;
  }
  for (std::string_view word : kSecretWholeWords) {
    if (HoldsWordIgnoringCase(text, word)) return true;
  }
  return false;
}

/// File names that say they hold a secret (`token`, `github-token.json`,
/// `.api_key`); a shorter list than for search patterns: `auth.ts` is code.
bool SecretFileName(std::string_view name) {
  const std::string lower = util::AsciiLower(name);
  // Browsers' cookie and login stores hold sessions and passwords too.
  for (std::string_view word :
       {"token", "secret", "passw", "credential", "api_key", "apikey", "api-key", "access_key",
        "private_key", "privatekey", "cookies", "logins.json", "key4.db", "login data"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

/// Folded paths (FoldPath) where credentials live: the home directory itself
/// and its dot-folders, other users' homes, the root and /etc.
bool SecretPlace(std::string_view folded) {
  if (folded == "~" || folded == "/" || folded == "/home" || folded == "/root" ||
      folded == "/users" || folded == "/etc" || folded.starts_with("/etc/") ||
      folded.starts_with("~/.") || folded.starts_with("/root/") ||
      folded.starts_with("~/library") || folded.starts_with("~/appdata")) {
    return true;
  }
  // Another user's home, or the home directories of everyone.
  for (std::string_view homes : {"/home/", "/users/"}) {
    if (folded.starts_with(homes) && folded.find('/', homes.size()) == std::string_view::npos) {
      return true;
    }
  }
  return false;
}

/// A search's patterns (-e, --regexp=, else the first operand) and the
/// paths it searches.
struct SecretSearch {
  bool recursive = false;       // -r and the like, or a program that always recurses
  bool secret_pattern = false;  // a pattern asks for a secret word (or is known only at run time)
  std::vector<std::string_view> paths;
};

SecretSearch ReadSearch(const CommandNode& entry, std::string_view name,
                        const std::vector<Word>& words, std::size_t start) {
  SecretSearch search;
  search.recursive = util::NameIn(name, {"rg", "ag", "ack"});
  bool explicit_pattern = false;
  bool operands = false;
  for (std::size_t i = start + 1; i < words.size(); ++i) {
    const std::string& text = words[i].text;
    if (text == "--") {
      operands = true;
      continue;
    }
    if (!operands && IsOptionWord(text)) {
      if (text == "-e" || text == "--regexp" || text == "-f" || text == "--file") {
        explicit_pattern = true;
        if (i + 1 < words.size() && text.back() == 'e') {
          search.secret_pattern = search.secret_pattern || SecretWord(words[i + 1].text);
        }
        ++i;
        continue;
      }
      if (text.starts_with("--regexp=")) {
        explicit_pattern = true;
        search.secret_pattern = search.secret_pattern || SecretWord(text);
        continue;
      }
      if (text == "-r" || text == "-R" || text == "--recursive" ||
          text == "--dereference-recursive" || text == "--directories=recurse" ||
          (text[1] != '-' && (FlagMatches("-r", text) || FlagMatches("-R", text)))) {
        search.recursive = true;
      }
      if (util::NameIn(text, entry.options_with_value)) ++i;
      continue;
    }
    if (!explicit_pattern) {
      // A pattern known only at run time (`"$P"`) may be any secret word.
      explicit_pattern = true;
      search.secret_pattern = SecretWord(text) || words[i].expands || words[i].substitutes;
      continue;
    }
    search.paths.push_back(text);
  }
  return search;
}

}  // namespace

void Walker::SearchedForSecrets(std::string_view searched, std::string_view path,
                                std::string_view segment) {
  const Level level = tables_.settings.secrets_output;
  if (level == Level::kL0) return;
  // A pattern (`password`) or a file glob (`*.env`, `id_*`) that asks for secrets.
  const std::string lower = util::AsciiLower(searched);
  const bool secret = SecretWord(lower) || SecretFileName(lower) ||
                      lower.find(".env") != std::string::npos ||
                      lower.find(".pem") != std::string::npos;
  if (!secret || !SecretPath(path)) return;
  Add(level,
      "Searches '" + util::OneLine(path, 60) +
          "', where credentials live, for secrets: what it finds is shown to the agent.",
      segment);
}

bool Walker::SecretPath(std::string_view path) const {
  if (path.empty() || path.front() == '-') return false;
  const std::string expanded = Resolve(path);
  return SecretPlace(FoldPath(NormalizePath(expanded.empty() ? std::string(path) : expanded)));
}

bool Walker::SecretLookingFile(std::string_view path) const {
  const std::string folded = FoldPath(NormalizePath(Resolve(path)));
  // Not /etc: /etc/passwd holds no password.
  if (!folded.starts_with("~/.") && !folded.starts_with("/root/.")) return false;
  const std::size_t slash = folded.rfind('/');
  return SecretFileName(std::string_view(folded).substr(slash + 1));
}

void Walker::CredentialSearch(const CommandNode& entry, std::string_view name,
                              std::string_view entry_name, const std::vector<Word>& words,
                              std::size_t start, std::string_view segment) {
  const Level level = tables_.settings.secrets_output;
  if (level == Level::kL0) return;
  if (util::NameIn(entry_name, {"find", "fd"})) {
    FindCredentials(entry_name, words, start, segment);
    return;
  }
  // awk and sed scripts filter like a grep pattern (`awk '/token/' ~/.config/*/*`).
  // The greps by name: the table's grep entry also lists git-grep.
  if (!util::NameIn(name, {"grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "ugrep"}) &&
      !util::NameIn(entry_name, {"awk", "sed"})) {
    return;
  }
  const SecretSearch search = ReadSearch(entry, name, words, start);
  if (search.paths.empty() && search.secret_pattern && FiltersSecretPlace(level, segment)) return;
  for (std::string_view path : search.paths) {
    // A glob reaches many files as a recursive search does (`~/.config/*/*`).
    const bool many = search.recursive || path.find('*') != std::string_view::npos;
    if (many && search.secret_pattern && SecretPath(path)) {
      Add(level,
          "Searches '" + util::OneLine(path, 60) +
              "', where credentials live, for secrets: what it finds is shown to the agent.",
          segment);
      return;
    }
  }
}

bool Walker::FiltersSecretPlace(Level level, std::string_view segment) {
  // `find ~/.config -type f | xargs grep -i token`, `cat ~/.bashrc | grep
  // -i key`: what is filtered for secrets comes from where credentials live.
  std::string_view rest = line_.piped_from;
  while (!rest.empty()) {
    const std::size_t blank = std::min(rest.find_first_of(" \t\n"), rest.size());
    const std::string_view token = rest.substr(0, blank);
    rest.remove_prefix(std::min(blank + 1, rest.size()));
    if (!token.empty() && token.size() <= 4096 && SecretPath(token)) {
      Add(level,
          "Filters what '" + util::OneLine(line_.piped_from, 60) +
              "' reads where credentials live for secrets: what it finds is shown to the agent.",
          segment);
      return true;
    }
  }
  return false;
}

void Walker::FindCredentials(std::string_view entry_name, const std::vector<Word>& words,
                             std::size_t start, std::string_view segment) {
  const bool fd = entry_name == "fd";
  std::size_t i = start + 1;
  std::vector<std::string_view> places;
  bool secret_name = false;
  bool prints = line_.pipes_out;  // `find … | xargs cat` prints what find names
  if (!fd) {
    // find [-H|-L|-P|-O…|-D …] [starting point…] [expression]
    while (i < words.size() && (words[i].text == "-H" || words[i].text == "-L" ||
                                words[i].text == "-P" || words[i].text.starts_with("-O"))) {
      ++i;
    }
    for (; i < words.size(); ++i) {
      const std::string& text = words[i].text;
      if (text.empty() || text.front() == '-' || text == "(" || text == "!") break;
      places.push_back(text);
    }
  }
  bool fd_pattern = false;
  for (; i < words.size(); ++i) {
    const std::string& text = words[i].text;
    if (fd && !IsOptionWord(text)) {
      if (!fd_pattern) {
        fd_pattern = true;
        secret_name = secret_name || SecretWord(text);
      } else {
        places.push_back(text);
      }
      continue;
    }
    if ((text == "-name" || text == "-iname" || text == "-path" || text == "-ipath" ||
         text == "-wholename" || text == "-regex" || text == "-iregex" || text == "-e" ||
         text == "--extension" || text == "-g" || text == "--glob") &&
        i + 1 < words.size()) {
      const std::string& pattern = words[i + 1].text;
      secret_name = secret_name || SecretWord(pattern) ||
                    PathListMatches(tables_.sensitive, FoldPath(NormalizePath(pattern))) ||
                    (fd && PathListMatches(tables_.sensitive, "x." + util::AsciiLower(pattern)));
      ++i;
      continue;
    }
    if (text == "-exec" || text == "-execdir" || text == "-ok" || text == "-okdir" ||
        (fd && (text == "-x" || text == "-X" || text.starts_with("--exec")))) {
      prints = true;
      // `-exec grep -l password {} +` asks for secrets itself. Each word
      // is looked at once: the scan goes on after the command's end.
      std::size_t k = i + 1;
      for (; k < words.size() && words[k].text != ";" && words[k].text != "+"; ++k) {
        secret_name = secret_name || SecretWord(words[k].text);
      }
      i = k;
    }
  }
  if (places.empty()) places.push_back(".");
  bool secret_place = false;
  for (std::string_view place : places) secret_place = secret_place || SecretPath(place);
  if (secret_place && secret_name && prints) {
    Add(tables_.settings.secrets_output,
        "Finds credential-looking files where credentials live and prints or passes them on: "
        "what they hold is shown to the agent.",
        segment);
  }
}

}  // namespace togmal::policy
