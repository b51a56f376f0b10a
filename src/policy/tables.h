#pragma once
// The classifier's tables in memory (parsed from config/classifier.yaml by
// tables.cpp) and the small matchers they use. Internal to togmal_policy.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "path_list.h"
#include "togmal/policy/classifier.h"
#include "togmal/policy/level.h"
#include "togmal/util/raw_list.h"
#include "write_content.h"

namespace togmal::policy {

/// A condition on a command's words; the first matching rule of an entry decides.
struct ArgRule {
  Level level = Level::kL2;
  std::string why;
  std::vector<std::string> any_flag;
  std::vector<std::vector<std::string>> all_flags;
  std::vector<std::string> none_flag;
  std::vector<std::string> any_arg;
  std::vector<std::string> all_args;
  std::vector<std::string> any_word;
  std::optional<bool> no_args;
  int min_args = 0;   ///< at least this many non-option words (0: no condition)
  int max_args = -1;  ///< at most this many non-option words (-1: no condition)
  /// The rule holds only under this profile (`profile: strict`); unset: any.
  std::optional<Profile> profile;
  /// Every non-option word is a URL of this machine (localhost, 127.0.0.1,
  /// [::1]; no user part that could move the host elsewhere).
  bool local_urls = false;
};

/// A check on code handed to an interpreter or SQL client (lower-cased text).
struct TextRule {
  Level level = Level::kL2;
  std::string why;
  std::vector<std::string> contains;
  std::vector<std::string> unless;
};

enum class Runs {
  kNothing,
  kWrapper,
  kShell,
  kInterpreter,
  kEval,
  kFind,
  kSql,
  kCommandString,
  kWindowsShell
};

struct RawCommandNode;
struct CommandNode;

/// A compiled entry's subcommands, each turned into a CommandNode when
/// FindChild first names it: `git status` converts git and status, not git's
/// hundred other subcommands. Thread-safe.
class LazyChildren {
 public:
  explicit LazyChildren(std::size_t count) : nodes_(count) {}
  const CommandNode* Get(std::size_t index, const RawCommandNode& raw);

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<const CommandNode>> nodes_;
};

/// One command or subcommand entry.
struct CommandNode {
  std::string name;  ///< as written in the table (may be a glob for subcommands)
  Level level = Level::kL2;
  std::string why;
  std::vector<std::string> options_with_value;
  /// Parsed from YAML. A compiled entry keeps its subcommands in `raw` and
  /// `lazy` instead (FindChild reads both).
  std::vector<CommandNode> subcommands;
  const RawCommandNode* raw = nullptr;
  std::shared_ptr<LazyChildren> lazy;
  bool HasSubcommands() const;
  std::vector<ArgRule> rules;
  Runs runs = Runs::kNothing;
  std::vector<std::string> code_options;
  std::vector<TextRule> code_rules;
  std::vector<std::string> query_options;
  std::string default_command;
  /// For a runner fed on stdin (xargs): the commands whose output is file
  /// names (`find`, `git`). From anything else the words it appends are a
  /// file's content, known only at run time.
  std::vector<std::string> input_listers;
  int skip_positionals = 0;
  /// A wrapper whose command runs inside a container (`docker exec`,
  /// `kubectl exec`): a shell or interpreter given no code there is a
  /// session a person enters, not a bare interpreter on this machine.
  bool in_container = false;
  bool data_args = false;
  bool writes_args = false;
  bool writes_last_arg = false;
  /// The files it writes (writes_args) get what it reads on stdin (tee):
  /// text fed to it as the line shows is judged as their new text.
  bool writes_stdin = false;
  /// Names (lower case, dotted) that code may consist of and still only print
  /// (`print`, `sys.version`): such code is L1.
  std::vector<std::string> print_only;
  /// A build or test tool that loads the project's files (build files,
  /// tests): run after a write in the same command line, it runs what was written.
  bool loads_project = false;
  /// The program reads a one-dash word as one option (Go's flag package,
  /// terraform, nuclei: `-overlay`, `-cloud-upload`), never as a cluster of
  /// letters: on this entry and below it, such a word is safe only when a
  /// list names it whole.
  bool single_dash_long = false;
  /// The options known to be safe: only print, filter or format, or write
  /// what the classifier checks as a write. On an entry whose level is L0 or
  /// L1, any other option makes the call not positively known safe (L2). They
  /// also hold for the words after a subcommand (global options). Those that
  /// take a value are in options_with_value too.
  /// Views into the compiled tables' constant data, or into owned_options for
  /// an entry parsed from YAML: a hook that names `git` would otherwise copy
  /// every subcommand's list.
  std::vector<std::string_view> safe_options;
  std::shared_ptr<const std::vector<std::string>> owned_options;
  /// safe_options taken apart for look-ups (IndexSafeOptions): the literal
  /// ones sorted, and those with `*`, `?` or `[`. Each option word of a call
  /// is looked up in every list that holds for it.
  std::vector<std::string_view> safe_sorted, safe_globs;
  /// Options after which the remaining words are another program's (python
  /// -c CODE, -m MODULE): the option check stops there.
  std::vector<std::string> options_end;
  /// Options whose value the rules see as an operand (php -S ADDR, -t DIR),
  /// yet is the option's: the first operand `options_end: ["*"]` ends at
  /// (the script) comes after it, and the option check skips it.
  std::vector<std::string> operand_values;
  /// Options whose value names a file the program writes (`wget -O F`), on
  /// top of the spellings every program shares (`-o`, `--output`, …;
  /// program_analysers.cpp): the file is checked as a write.
  std::vector<std::string> output_options;
  /// Options whose value is a key the program authenticates with (`ssh -i
  /// KEY`): the program uses the file for itself and shows or sends none of
  /// it, so a key there is not a sensitive read.
  std::vector<std::string> key_options;
  /// Options whose value names the archive the program packs or unpacks
  /// (`tar -f`), and the options with which it writes that archive (tar's
  /// `-c`, `-r`, `-u`): with one of the latter, the archive is checked as a
  /// write (program_analysers.cpp).
  std::vector<std::string> archive_options, writes_archive;
  /// The first word may be option letters without a dash (`tar czf
  /// ARCHIVE`); each of them that takes a value takes the next word in turn.
  bool old_style_options = false;
  /// At most this many operands (non-option words) are read; more are not
  /// positively known (-1: no limit).
  int max_operands = -1;
  /// The Nth operand (1-based) is a file written (`uniq IN OUT`); 0: none.
  int writes_operand = 0;
  /// The program-specific analyser for this entry (sed, awk, shell_bodies,
  /// package_script, git); empty: none.
  std::string analyser;
};

struct ToolEntry {
  std::string name;  ///< may be a glob (mcp__*)
  Level level = Level::kL2;
  std::optional<Level> outside_project;
  std::string why;
  std::vector<std::string> reads;
  std::vector<std::string> writes;
  std::string command;
  /// The fields holding what the tool searches its `reads` paths for (a
  /// pattern, a file glob): a secret asked for where credentials live is
  /// the `secrets_output` level, as for `grep -r token ~`.
  std::vector<std::string> searches;
  /// The field holding the URL a tool fetches, and the hosts of reference
  /// documentation (`docs.python.org`, `*.rust-lang.org`) it may fetch at L0:
  /// public pages, read only, from the sites' own operators.
  std::string url;
  std::vector<std::string> reference_hosts;
  /// The fields whose text leaves the machine (a web search's query): the
  /// tool's level holds only while they carry nothing that looks like a
  /// secret and no more than a query's worth of text.
  std::vector<std::string> sends;
};

/// A shape of code that has no place in a project's files whatever they are
/// (planted_code in classifier.yaml): every group must match the written
/// text, each by one of its alternatives (lower-case substrings).
struct PlantedCode {
  /// Separates a group's alternatives: a group is held joined, as compiled, so
  /// the hook copies a handful of strings at start-up, not every alternative.
  static constexpr char kSeparator = '\x1f';
  Level level = Level::kL2;
  std::string why;
  std::vector<std::string> groups;
  /// An RE2 pattern the folded text must also match (empty: none), for a
  /// shape that lists cannot spell: the many ways to say "verification off".
  std::string pattern;
};

struct AssignmentEntry {
  Level level = Level::kL1;
  std::string why;
};

struct Settings {
  Level unknown_command = Level::kL2;
  Level unknown_tool = Level::kL2;
  Level substitution_minimum = Level::kL2;
  Level unparsed_minimum = Level::kL2;
  Level too_deep = Level::kL3;
  Level sensitive_minimum = Level::kL2;
  Level secrets_output = Level::kL2;
  /// The profile these settings are for (rules marked with another profile
  /// do not apply).
  Profile profile = Profile::kStandard;
};

using util::RawList;
using util::RawStrings;

// The compiled tables' shapes: the structs above as constant data, with C
// strings and static arrays, so the built-in tables cost no parsing at all.
// togmal_compile_tables writes them (compile_tables.cpp); tables_raw.cpp turns
// an entry into a CommandNode when a call first names it.

struct RawArgRule {
  Level level = Level::kL2;
  const char* why = "";
  RawStrings any_flag;
  RawList<RawStrings> all_flags;
  RawStrings none_flag, any_arg, all_args, any_word;
  signed char no_args = -1;  ///< -1 unset, else 0/1
  int min_args = 0;
  int max_args = -1;
  signed char profile = -1;  ///< -1 any, else a Profile
  bool local_urls = false;
};

struct RawTextRule {
  Level level = Level::kL2;
  const char* why = "";
  RawStrings contains, unless;
};

struct RawCommandNode {
  const char* name = "";
  Level level = Level::kL2;
  const char* why = "";
  RawStrings options_with_value;
  RawList<RawCommandNode> subcommands;
  RawList<RawArgRule> rules;
  Runs runs = Runs::kNothing;
  RawStrings code_options;
  RawList<RawTextRule> code_rules;
  RawStrings query_options;
  const char* default_command = "";
  RawStrings input_listers;
  int skip_positionals = 0;
  bool in_container = false;
  bool data_args = false;
  bool writes_args = false;
  bool writes_last_arg = false;
  bool writes_stdin = false;
  RawStrings print_only;
  bool loads_project = false;
  bool single_dash_long = false;
  RawStrings safe_options, options_end, operand_values, output_options, key_options;
  RawStrings archive_options, writes_archive;
  bool old_style_options = false;
  int max_operands = -1;
  int writes_operand = 0;
  const char* analyser = "";
};

struct RawToolEntry {
  const char* name = "";
  Level level = Level::kL2;
  signed char outside_project = -1;  ///< -1 unset, else a level
  const char* why = "";
  RawStrings reads, writes;
  const char* command = "";
  RawStrings searches;
  const char* url = "";
  RawStrings reference_hosts;
  RawStrings sends;
};

struct RawAssignment {
  const char* name = "";
  Level level = Level::kL1;
  const char* why = "";
};

/// One name of a compiled command entry; sorted by name for binary search.
struct CompiledCommandName {
  std::string_view name;
  std::uint32_t entry;
};

/// config/classifier.yaml as compiled at build time (compiled_tables.cpp). A
/// hook call meets a handful of the ~300 commands, so entries become
/// CommandNodes one at a time, on first lookup (LazyCommands).
struct RawPlantedCode {
  Level level = Level::kL2;
  const char* why = "";
  RawStrings groups;  ///< each group's alternatives joined by '\x1f' (they may hold a newline)
  const char* pattern = "";
};

struct RawContentJudge {
  ContentFormat format = ContentFormat::kKeys;
  RawStrings files, keys;
};

struct CompiledTables {
  Settings settings;
  Settings strict_settings;
  RawStrings sensitive, not_sensitive, runs_later, system, scratch, guard, audit_database;
  RawList<RawContentJudge> runs_later_content;
  RawList<RawPlantedCode> planted_code;
  RawList<RawToolEntry> tools;
  RawList<RawAssignment> assignments;
  RawList<CompiledCommandName> names;
  RawList<RawCommandNode> entries;
};

/// Compiled command entries, each turned into a CommandNode on first lookup. Thread-safe.
class LazyCommands {
 public:
  explicit LazyCommands(const CompiledTables& compiled);

  /// The entry for `name`, or null when the compiled tables have none.
  const CommandNode* Find(std::string_view name) const;

 private:
  const CompiledTables& compiled_;
  mutable std::mutex mutex_;
  mutable std::vector<std::unique_ptr<const CommandNode>> parsed_;  // by entry index
};

struct Tables {
  Settings settings;
  /// `settings` with `profiles: strict: settings:` applied (profile kStrict).
  Settings strict_settings{.profile = Profile::kStrict};
  /// The standard profile's settings while `settings` holds another's.
  Settings standard_settings;
  /// Path patterns, held in lower case as they are loaded and matched against
  /// FoldPath spellings (what a case-insensitive file system opens); the
  /// built-in ones are lower-cased at build time. Scratch places are the
  /// exception, kept as written: only as written are they harmless.
  PathList sensitive, not_sensitive, system, scratch;
  /// togmal's own files and the host settings that register it; the audit database.
  PathList guard, audit_database;
  /// Files an everyday tool later loads and runs (build files, tool configs
  /// that can hold code, test bootstraps, start-up files, editor tasks, hooks,
  /// manifests' scripts, registry settings): a write is at least L2, unless
  /// a `runs_later_content` judge shows the change holds no code.
  PathList runs_later;
  /// How the content of some runs_later files decides (package.json's keys,
  /// a JS config's words, pyproject's keys); file globs and keys in lower case.
  std::vector<ContentJudge> runs_later_content;
  /// Code no project file should hold, wherever it is written.
  std::vector<PlantedCode> planted_code;
  /// Parsed entries (from YAML); they shadow the compiled ones.
  std::unordered_map<std::string, std::shared_ptr<const CommandNode>> commands;
  /// The built-in entries not yet looked up (set by Classifier::Compiled()).
  std::shared_ptr<const LazyCommands> compiled_commands;
  std::vector<ToolEntry> tools;
  /// Parsed entries (from YAML); they shadow the compiled ones, which are
  /// looked up where they are (sorted by name) instead of copied at start-up.
  std::unordered_map<std::string, AssignmentEntry> assignments;
  RawList<RawAssignment> compiled_assignments;

  /// The entry for a lower-cased command name, or null.
  const CommandNode* FindCommand(const std::string& name) const;
  /// The entry for a variable name (a glob entry such as GIT_CONFIG_KEY_* for
  /// a numbered family), or std::nullopt.
  std::optional<AssignmentEntry> FindAssignment(std::string_view name) const;
};

/// Parses `yaml` into `tables`, replacing entries of the same name.
Result<void> ParseTables(std::string_view yaml, std::string_view source, Tables& tables);

/// Everything in `compiled` but the command entries (LazyCommands reads those).
void TablesFromCompiled(const CompiledTables& compiled, Tables& tables);

/// Fills node.safe_sorted and node.safe_globs from node.safe_options.
void IndexSafeOptions(CommandNode& node);

/// One compiled command entry as the classifier's struct.
CommandNode NodeFromRaw(const RawCommandNode& raw);

/// The built-in tables as compiled at build time.
extern const CompiledTables kCompiledTables;

/// Whether some pattern of `list` matches `normalized_path` (PathList::Matches).
inline bool PathListMatches(const PathList& list, std::string_view normalized_path) {
  return list.Matches(normalized_path);
}

/// The spelling under which a case-insensitive file system (macOS, Windows)
/// opens the same file as `normalized_path`: lower case, the home directory
/// as `~` whatever its case, `\` as `/`, and what Windows ignores dropped
/// (trailing dots and blanks of each name, a `::$DATA` stream suffix).
std::string FoldPath(std::string_view normalized_path);

/// Lexically normalises a path word for matching: `$HOME`/`${HOME}`/the home
/// directory → `~`, duplicate and trailing slashes and `./` removed.
std::string NormalizePath(std::string_view path);

}  // namespace togmal::policy
