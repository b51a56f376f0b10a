#pragma once
/// What the extractors of `togmal scan` find in a file: the shell text each
/// place will run, where it starts, and what runs it.

#include <string>
#include <vector>

#include "togmal/policy/level.h"

namespace togmal::scan {

/// How the text of a ScriptSource maps onto the lines of its file.
enum class LineMapping {
  kKept,    ///< line i of `text` is line `line + i` of the file (scripts, `run: |` blocks)
  kFolded,  ///< the text was folded from its source (`>` blocks, joined continuations):
            ///< all of it is reported at `line`
};

/// One piece of shell text a file makes something run.
struct ScriptSource {
  int line = 1;    ///< 1-based line of the text's first line
  int column = 0;  ///< 1-based column of the text's first character; 0 when unknown
  /// The text as written, for people (one line per source line when kKept).
  std::string text;
  /// What the shell will see: `text` with the file format's own syntax
  /// resolved (make's `$$` and `$(VAR)`, a workflow's `${{ … }}`). Same
  /// number of lines as `text`. Empty: the same as `text`.
  std::string shell;
  std::string origin;  ///< what runs it, e.g. "GitHub Actions job build step 3 run:"
  LineMapping mapping = LineMapping::kKept;

  const std::string& ShellText() const { return shell.empty() ? text : shell; }
};

/// Something in a file that could not be read as its format (the file is
/// still scanned as far as it goes).
struct SourceProblem {
  int line = 0;  ///< 1-based; 0 when the whole file is meant
  std::string why;
};

/// A risk in the file format itself rather than in a command, e.g. text an
/// outsider controls pasted into a script before the shell parses it.
struct FormatFinding {
  policy::Level level = policy::Level::kL3;
  std::string reason;
  int line = 1;
  int column = 0;
  std::string command;  ///< the line it is on
  std::string origin;
};

/// Everything one extractor found in one file.
struct Extraction {
  std::vector<ScriptSource> scripts;
  std::vector<FormatFinding> findings;
  std::vector<SourceProblem> problems;
};

}  // namespace togmal::scan
