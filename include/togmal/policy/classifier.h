#pragma once
/// The L0–L3 classifier: tool calls and shell commands → a risk level with
/// one readable reason per finding.
///
/// Everything it knows lives in tables (config/classifier.yaml, embedded, and
/// an optional $XDG_CONFIG_HOME/togmal/classifier.yaml on top): which commands
/// and subcommands are how risky, which flags and arguments escalate them,
/// which commands only wrap another (`sudo`, `env`, `timeout`), which run code
/// (`bash -c`, `eval`, `find -exec`), which paths are sensitive. See
/// docs/classifier.md.

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "togmal/policy/level.h"
#include "togmal/policy/shell_lexer.h"
#include "togmal/policy/tool_call.h"
#include "togmal/util/result.h"

namespace togmal::policy {

/// One reason that contributes to a level.
struct Finding {
  Level level = Level::kL0;
  std::string why;      ///< one readable sentence
  std::string segment;  ///< the command text (or path) that decided, if any
};

/// How an executed shell segment came to run.
enum class SegmentOrigin {
  kCommandLine,  ///< written in the command line itself (any nesting)
  kShellString,  ///< the string of `bash -c '…'` / `sh -c`
  kEval,         ///< the arguments of `eval`
  kShellStdin,   ///< a heredoc or echoed text fed to a shell (`sh <<EOF`, `echo … | sh`)
  kWrapped,      ///< run by a wrapper: `sudo X`, `xargs X`, `timeout 5 X`, `find -exec X`
};

/// One simple command that would run, after wrappers and code strings are
/// resolved.
struct ExecutedSegment {
  std::string text;               ///< source text of the command
  std::vector<std::string> argv;  ///< the words, from the command actually run
  SegmentOrigin origin = SegmentOrigin::kCommandLine;
  int depth = 0;  ///< nesting (substitutions, code strings)
};

/// The classifier's verdict.
struct Classification {
  Level level = Level::kL0;       ///< the highest level of any finding
  std::vector<Finding> findings;  ///< in the order found; never empty
  std::size_t deciding = 0;       ///< index of the first finding at `level`
  /// A shell tool's command: the segments that would run (ExecutedSegments),
  /// collected by the same walk, for the rules' `command` conditions.
  std::vector<ExecutedSegment> segments;

  const Finding& Deciding() const { return findings.at(deciding); }
};

struct Tables;  // the parsed config/classifier.yaml, see classifier.cpp

/// The classifier. Cheap to copy (shares its tables); thread-safe to use.
class Classifier {
 public:
  /// Builds a classifier from YAML text. `source` names the text in errors
  /// ("classifier.yaml:12: …"). `base`, if given, is the classifier whose
  /// tables this text is layered on (entries replace entries of the same name).
  static Result<Classifier> FromYaml(std::string_view yaml, std::string_view source,
                                     const Classifier* base = nullptr);

  /// The built-in tables (config/classifier.yaml, compiled at build time).
  static Result<Classifier> Compiled();

  /// The built-in tables with the user's ConfigDir()/classifier.yaml on top.
  static Result<Classifier> Load();

  /// Load(), parsed once per process, on first use. If the user file is
  /// broken, logs the error and uses the embedded tables alone.
  static const Classifier& Default();

  /// Default() under `profile`: the same tables, with the profile's rules and
  /// settings in force. Built once per process and profile.
  static const Classifier& Default(Profile profile);

  /// These tables under `profile`.
  Classifier WithProfile(Profile profile) const;

  /// Classifies a Claude Code tool call.
  Classification Classify(const ToolCall& call) const;

  /// Classifies a Bash command line run in `cwd` ("" if unknown).
  Classification ClassifyCommand(std::string_view command, std::string_view cwd = {}) const;

  /// Every simple command `command` would run, with code strings (`bash -c`,
  /// `eval`, `sh <<EOF`, `… | sh`) and wrappers (`sudo`, `xargs`, `find
  /// -exec`) resolved: what a rule's `command` condition should look at.
  std::vector<ExecutedSegment> ExecutedSegments(std::string_view command) const;

 private:
  explicit Classifier(std::shared_ptr<const Tables> tables) : tables_(std::move(tables)) {}
  std::shared_ptr<const Tables> tables_;
};

/// The classification as {level, why, segment?, reasons:[{level, why,
/// segment?}]}: the classifier's own view, before rules and the level
/// mapping (check::Judge) turn it into a decision.
nlohmann::json ToJson(const Classification& classification);

}  // namespace togmal::policy
