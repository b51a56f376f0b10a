#pragma once
// What a Write/Edit/MultiEdit puts into a file that an everyday tool later
// loads and runs (`paths: runs_later`): where the content decides
// (`paths: runs_later_content`), a change that holds no code stays an
// ordinary write. Internal to togmal_policy.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "path_list.h"
namespace togmal::policy {

/// How a file's content is read to find code in a change.
enum class ContentFormat {
  kJson,  ///< a JSON manifest: listed top-level keys (scripts, bin …) must not change
  kCode,  ///< a JS/TS config: changed lines must not hold a listed word (import, require, `(` …)
  kKeys,  ///< TOML/INI/line files: changed lines must not set or sit under a listed key
  kCommands,  ///< its data are commands (lint-staged): every change is code
  /// Source whose comment lines a tool runs as commands (`//go:generate`):
  /// an added line starting with a listed key is code. Judged only where
  /// the content is known (Write, Edit), for files outside `runs_later`.
  kDirectives,
};

/// One `paths: runs_later_content` entry: the files it reads and the keys
/// or words that mark code in them (held in lower case).
struct ContentJudge {
  ContentFormat format = ContentFormat::kKeys;
  PathList files;
  std::vector<std::string> keys;
};

/// One replacement of an Edit or MultiEdit.
struct TextEdit {
  std::string old_text;
  std::string new_text;
  bool replace_all = false;
};

/// What a tool call writes: the whole new text (Write), or edits (Edit,
/// MultiEdit); or what a shell command line shows it writes (echo's and
/// printf's arguments, a heredoc, a here-string, text fed to tee).
struct WriteContent {
  std::optional<std::string> whole;
  std::vector<TextEdit> edits;
  /// The text is the change itself (a tool's input). A shell's is not: it
  /// may be appended (`>>`) or written otherwise (printf's format, `echo
  /// -e`), so only planted_code judges it, not FindCode.
  bool exact = true;
};

/// The text a shell command line shows it writes into a file (not `exact`).
inline WriteContent ShellText(std::string text) {
  WriteContent content;
  content.whole = std::move(text);
  content.exact = false;
  return content;
}

/// The first thing in the change that runs code, in words ("adds a
/// 'postinstall' script", "imports 'child_process'"), or an empty string when
/// the change is plain data. `before` is the file as it is on disk (nullopt:
/// absent or unreadable). Edits that cannot be applied to `before` are judged
/// on their fragments alone, strictly: what cannot be placed is code.
std::string FindCode(const ContentJudge& judge, const std::optional<std::string>& before,
                     const WriteContent& content);

}  // namespace togmal::policy
