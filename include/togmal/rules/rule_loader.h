#pragma once
/// Reads rule files and layers them: built-in (config/rules.yaml, embedded) <
/// user ($XDG_CONFIG_HOME/togmal/rules.yaml) < project (.togmal/rules.yaml,
/// found from the call's cwd upward), under the administrator's system file
/// (util::SystemConfigFile("rules.yaml"), /etc/togmal/rules.yaml; read only
/// when root-owned and writable only by root).
///
/// The system layer is a ceiling: its DENY, ASK and SAMPLE rules are matched
/// on their own, and when one matches, the decision is never looser than it
/// (rules::ApplyRules), whatever a user or project rule says. Its ALLOW and PASS
/// rules are reported and ignored (nothing can loosen beneath a ceiling). A
/// system rule reusing a built-in id replaces it (`enabled: false` switches
/// a built-in rule off for everyone); a user or project rule reusing a system
/// rule's id is reported and ignored.
///
/// Layering: a user rule with the id of a built-in one replaces it (so
/// `{id: x, enabled: false}` switches a built-in rule off). A project file comes
/// from the repository an agent works in, so it may only tighten: its ALLOW
/// rules and rules reusing a lower layer's id are reported and ignored, and
/// when a project rule decides, the decision is never looser than the one the
/// lower layers would have made (decision.h).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "togmal/rules/rule.h"
#include "togmal/util/result.h"

namespace togmal::rules {

/// The rules of one file, in file order.
struct RuleFile {
  std::string file;
  Layer layer = Layer::kBuiltin;
  std::vector<Rule> rules;
};

/// Parses the YAML text of one rule file. Every error names `file:line`.
/// With `compile_regexes`, every regex is compiled now (validation, `serve`);
/// without, they compile on first use (the hook).
Result<RuleFile> ParseRuleFile(std::string_view text, const std::string& file, Layer layer,
                               bool compile_regexes = false);

/// Reads and parses a rule file from disk. Only a regular file of at most
/// util::kMaxConfigBytes is read (a FIFO or a link to a device is an error,
/// never a hang).
Result<RuleFile> ReadRuleFile(const std::filesystem::path& path, Layer layer,
                              bool compile_regexes = false);

/// The built-in rules (config/rules.yaml, embedded).
Result<RuleFile> BuiltinRuleFile(bool compile_regexes = false);

/// The name the built-in file is reported under.
inline constexpr std::string_view kBuiltinRulesName = "<builtin>/rules.yaml";

/// The user's rule file: util::ConfigDir()/rules.yaml.
std::filesystem::path UserRulesPath();

/// The system rule file: util::SystemConfigFile("rules.yaml"), fixed at
/// build time.
std::filesystem::path SystemRulesPath();

/// Reads the system rule file at `path` (util::ReadSystemConfigFile: only a
/// root-owned file nobody else may write). std::nullopt when there is none.
Result<std::optional<RuleFile>> ReadSystemRuleFile(const std::filesystem::path& path);

/// Every `.togmal/rules.yaml` from `cwd` up to the repository root (the
/// nearest directory holding `.git`), outermost first; up to the file system
/// root when `cwd` is in no repository. A nearer file adds to the ones above
/// it, it cannot drop them. Only names are checked; nothing is read.
std::vector<std::filesystem::path> FindProjectRuleFiles(const std::filesystem::path& cwd);

/// Combines files into one RuleSet (the layering rules above). Files are given
/// lowest layer first.
RuleSet CombineRuleFiles(std::vector<RuleFile> files);

struct LoadOptions {
  /// Where the project file is searched from; empty = no project layer.
  std::filesystem::path cwd;
  /// The user file; std::nullopt = UserRulesPath(). A missing file is fine.
  std::optional<std::filesystem::path> user_file;
  /// The system file; std::nullopt = SystemRulesPath(). For the tests of the
  /// layering only: no command line option, variable or file sets it.
  std::optional<std::filesystem::path> system_file = std::nullopt;
  bool include_builtin = true;
  /// Compile the built-in rules' regexes now (`serve`, validation) rather
  /// than on first use (the hook). User and project files are always
  /// compiled at load: a file counts only once it is valid as a whole.
  bool compile_regexes = false;
};

/// Rule files read for a stack of layers, lowest first, and the files that
/// exist but could not be loaded ("file:line: why"), left out.
struct LayerFiles {
  std::vector<RuleFile> files;
  std::vector<std::string> ignored;
};

/// The layers below a project's: the built-in (when `options.include_builtin`),
/// the system and the user file, as LoadRules and ActiveRules::Reload both
/// stack them. `options.cwd` is not read. Fails only when the built-in rules
/// cannot be loaded.
Result<LayerFiles> ReadBaseLayers(const LoadOptions& options);

/// The project files of `chain` (FindProjectRuleFiles), each compiled whole.
LayerFiles ReadProjectLayers(const std::vector<std::filesystem::path>& chain);

/// Loads all layers. A system, user or project file that exists but cannot be read,
/// parsed or validated is left out and named in RuleSet::ignored, which
/// stops auto-approval (check::Judge): no file can weaken the policy by being
/// broken. Fails only when the built-in rules
/// cannot be loaded.
Result<RuleSet> LoadRules(const LoadOptions& options);

}  // namespace togmal::rules
