#pragma once
// The walk over a command line that turns it into findings: the Walker, the
// state it carries from one command of a line to the next (LineState), and
// the helpers it shares with the program analysers (code strings, paths).
// The walk is spread by concern over walker.cpp (the line, its simple
// commands), command_walk.cpp (one command's words through the tables),
// code_strings.cpp, path_checks.cpp and the analysers' files.
// Internal to togmal_policy.

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tables.h"
#include "togmal/policy/classifier.h"
#include "togmal/policy/shell_lexer.h"
#include "togmal/util/text.h"

namespace togmal::policy {

/// Code strings inside code strings (`bash -c "bash -c '…'"`) are followed
/// this deep; deeper is itself a finding.
inline constexpr int kMaxCodeDepth = 6;

/// `sudo nice timeout 5 …`: wrappers inside wrappers are followed this deep.
inline constexpr int kMaxWrapped = 32;

/// A finding's segment is cut to this many bytes: long segments are shown in part.
inline constexpr std::size_t kSegmentBytes = 160;

std::string Join(const std::vector<Word>& words, std::size_t from, std::size_t to);
std::string_view GenericPhrase(Level level);
inline bool IsOptionWord(std::string_view word) { return word.size() > 1 && word.front() == '-'; }

/// Where the command a `runs: command_string` program is given as words
/// starts (`watch -n 1 make test`: at `make`; `ssh host ls`: at `ls`): after
/// the program's own options, their values, the words it consumes first
/// (skip_positionals) and a `--`; words.size() when there is none.
std::size_t CommandWordsStart(const CommandNode& node, const std::vector<Word>& words,
                              std::size_t index);

/// The words of one command from `from` up to `to` (default: all), split
/// into options and positional arguments, knowing which options take a value.
struct ArgView {
  std::vector<std::string_view> options;  // as written, `--x=y` included
  std::vector<std::string_view> positionals;
  std::vector<std::string_view> all;  // every word
  bool double_dash = false;
  /// The options that take a value (ViewArgs' list): in a cluster, the rest
  /// of the word after one of them is its value (`-uo/etc/x`).
  const std::vector<std::string>* with_value = nullptr;
};

ArgView ViewArgs(const std::vector<Word>& words, std::size_t from,
                 const std::vector<std::string>& options_with_value,
                 std::size_t to = static_cast<std::size_t>(-1));
/// A word of short options as getopt reads it: letters that take no value,
/// up to the first that takes one (`with_value`), whose value is the rest of
/// the word or, when nothing is left, the next word (`-uo/etc/x` is `-u -o
/// /etc/x`, `-iS CODE` is `-i -S CODE`). A character no option name has
/// (`-1.5`, `-@4`) ends the letters.
struct ShortCluster {
  std::string_view letters;  // the option letters read (empty: no cluster)
  bool takes_value = false;  // the last letter takes a value
  std::string_view value;    // that value when written in the word (`/etc/x`)
  /// The last letter's value is the next word (`-so F`).
  bool ValueInNextWord() const { return takes_value && value.empty(); }
};
ShortCluster ReadCluster(std::string_view word,
                         std::initializer_list<const std::vector<std::string>*> with_value);

/// `-rf` matches `-r` and `-f`; `-o/x` and `-o=x` match `-o`; `--force=x` matches `--force`.
bool FlagMatches(std::string_view flag, std::string_view option);
bool AnyFlag(const ArgView& view, const std::vector<std::string>& flags);
bool ArgMatches(const std::vector<std::string>& patterns, std::string_view arg);
/// A URL of this machine: [http[s]://](localhost|127.0.0.1|[::1]|0.0.0.0)[:port][/…],
/// with no user part (`localhost@evil.com` is evil.com).
bool IsLocalUrl(std::string_view url);
/// `relative_in_project`: relative words name paths inside the project (no
/// `cd` elsewhere earlier in the line); all_args rules hold only then. A rule
/// marked with a profile holds only under `profile`.
bool RuleMatches(const ArgRule& rule, const ArgView& view, Profile profile,
                 bool relative_in_project = true);
const CommandNode* FindChild(const CommandNode& node, std::string_view name);
/// `X [SUB…] --help`/`--version` as the last word (`start`: the deepest table entry matched): the
/// program prints and exits (nothing that could smuggle a setting in, such as `-c key=value`).
enum class HelpRequest { kNo, kOnly, kWithOperands };
HelpRequest OnlyHelp(const std::vector<Word>& words, std::size_t start);

/// The option words of one command checked against the tables' lists of
/// known-safe options (positive knowledge, ScanOptions).
struct OptionScan {
  std::string unknown;                // the first option no list names (empty: none)
  std::vector<std::size_t> operands;  // indices of the operands after the deepest entry
  bool ended = false;                 // an options_end option: the rest is another program's
  std::size_t value = 0;              // when ended: the index of that option's value
};

/// One entry of a resolved command and the index of the word that named it.
struct PathStep {
  const CommandNode* node;
  std::size_t index;
  /// This entry or one above it reads a one-dash word as one option
  /// (single_dash_long), set as the path is built: an option before a
  /// subcommand is its parent's, and the deepest step's holds for the
  /// command's words as a whole.
  bool single_dash_long;
};

/// Scans the words after `path.front()` up to `stop`: an option is known when
/// a list of its entry or of an entry above it names it (`-abc` as `-a -b
/// -c`, `--x=y` as `--x`, `-n5` as `-n` with the value 5; `-#` in a list
/// stands for `-NUMBER`). `stop_words` end the scan (find's -exec).
OptionScan ScanOptions(const std::vector<Word>& words, const std::vector<PathStep>& path,
                       std::size_t stop, std::initializer_list<std::string_view> stop_words = {});

/// Where a command's stdin comes from, when that matters (shells, SQL).
struct Stdin {
  // kFile: `< FILE`, whose name is in `producer`.
  enum class Kind { kNone, kText, kPipe, kFile } kind = Kind::kNone;
  std::string text;      // heredoc / here-string body, or what an echo in the pipe prints
  bool known = false;    // text is what the command will read
  std::string producer;  // for a pipe: the command feeding it; for kFile the file
  /// For a pipe: text is what the command will read, but the printer is
  /// spelt otherwise than by its own name (`/bin/echo … |`, `env printf …
  /// |`), and `known` is false. Such text may raise a judgement (the planted
  /// code tee writes), never lower one (an interpreter's code that only
  /// prints, the words xargs appends) as known text does.
  bool spelt_otherwise = false;
  /// The text is what the command will read, however its printer is spelt.
  bool Shown() const { return known || spelt_otherwise; }
};

/// Where a shell's or an interpreter's code comes from, as its command line
/// says (code_strings.cpp).
struct CodeOperands {
  std::optional<std::string> code;      // given as text: `-c CODE`, `--eval=CODE`, `sh -c CODE`
  std::optional<std::string> script;    // the first operand: a file to run (for SQL, a database)
  bool reads_stdin_explicitly = false;  // `-`: the code comes from stdin
};

/// What one command of a line leaves for the commands after it (and for the
/// code strings walked inside it): where relative paths point, what the line
/// already wrote, what the current command pipes. A Walker walks one line, so
/// it starts fresh for each; every field names the functions that move it.
struct LineState {
  explicit LineState(std::string_view project) : cwd(project) {}

  // Where the command runs. TrackDirectory moves it (`cd`, `pushd`, `ln`);
  // Resolve, InsideProject and the path checks read it.
  std::string cwd;             // the project at first; `cd DIR` makes it DIR
  bool cwd_unknown = false;    // `cd "$X"`: later relative paths point anywhere
  bool cwd_in_project = true;  // cwd is the project or a directory inside it
  bool cwd_scratch = false;    // cwd_unknown, but a scratch directory (`cd "$(mktemp -d)"`)
  bool made_link = false;      // `ln` ran earlier in the line
  std::unordered_map<std::string, std::string> links;  // `ln -s`: link → target

  // `a=~/.ss; b=h/id_rsa; head $a$b`: shell variables set earlier in the
  // line to a value known as written. Simple records them (TrackValue) and
  // expands them in the words of the commands after (KnownValues).
  std::unordered_map<std::string, std::string> values;

  // Write-then-run (`echo … > conftest.py && pytest`): CheckWritePath,
  // CheckWrittenArgs (an example copied) and AnalyseProgram (an archive
  // unpacked) set wrote_file; Simple copies it to wrote_before as each
  // command starts.
  bool wrote_file = false;    // a file inside the project was written in this line
  bool wrote_before = false;  // … by a command before the current one

  // The current command's pipe, set by Simple; Line keeps the outer
  // command's across a code string walked in its middle.
  bool pipes_out = false;  // its output is piped to another command
  std::string piped_from;  // the command whose output is its stdin

  // Bounds on the walk's own recursion. PackageScript pushes and pops the
  // package scripts it expands (directory, name) to stop a script that runs
  // itself; Wrapper and find's -exec count the wrappers inside wrappers
  // (`nice nice … ls`).
  std::vector<std::string> scripts_open;
  int wrapped = 0;

  // Wrapper sets it while it walks the command an `in_container` wrapper
  // runs (`docker exec`, `kubectl exec`), and code strings inside it;
  // BareInterpreter reads it.
  bool in_container = false;
};

/// Walks a command line, collecting findings and executed segments.
class Walker {
 public:
  Walker(const Tables& tables, std::string_view cwd, std::vector<Finding>* findings,
         std::vector<ExecutedSegment>* segments)
      : tables_(tables),
        project_(cwd),
        project_real_(RealProject(cwd)),
        line_(cwd),
        findings_(findings),
        segments_(segments) {}

  void Line(std::string_view text, SegmentOrigin origin, int code_depth);

  void Add(Level level, std::string why, std::string_view segment) {
    if (findings_ != nullptr)
      findings_->push_back({level, std::move(why), util::OneLine(segment, kSegmentBytes)});
  }

  /// Checks a path a command or tool reads or names.
  void CheckReadPath(std::string_view path, Level base, std::string_view segment);
  /// A search tool asking for `searched` (a pattern or a file glob) under
  /// `path`: a secret asked for where credentials live is the
  /// `secrets_output` level (credential_hunting.cpp).
  void SearchedForSecrets(std::string_view searched, std::string_view path,
                          std::string_view segment);
  /// Checks a path written to; `inside_level` applies inside the project.
  /// `content` (a Write's or Edit's text) lets a runs_later file's change be
  /// judged on what it holds; without it such a write is at least L2. Any
  /// content, a shell's too (not `exact`), is judged for planted_code.
  void CheckWritePath(std::string_view path, Level inside_level, Level outside_level,
                      std::string_view segment, std::string_view what,
                      const WriteContent* content = nullptr);
  bool InsideProject(std::string_view path) const;
  /// `cp .env.example .env.local`: a documented example (not_sensitive)
  /// copied to a sensitive name that does not exist yet, both inside the
  /// project, the destination no file that runs later, the guard's or the system's.
  bool CopiesExample(std::string_view source, std::string_view destination) const;

  /// How a path relates to the guard itself (togmal's files, the host
  /// settings that register it, the audit database).
  enum class Guarded { kNo, kGuardFile, kAuditDatabase };
  Guarded GuardedPath(std::string_view path) const;
  /// A path word as an absolute, normalised path: `~` and `$HOME` expanded,
  /// relative paths resolved against the directory the command runs in
  /// (moved by `cd`), links made earlier in the line followed.
  std::string Resolve(std::string_view path) const;
  std::string ResolveUncached(std::string_view path) const;
  /// The text a path is judged by against the path tables: inside the
  /// project, its place there; elsewhere, where it leads (Resolve, `~` for
  /// the home directory); unknown (`$X/…`), as written.
  std::string JudgedPath(std::string_view path) const;
  /// A path for a reason, quoted, with where it leads when that differs.
  std::string Shown(std::string_view path) const;
  /// The project directory with its links followed (empty: no project).
  static std::string RealProject(std::string_view cwd);

 private:
  /// The first planted_code shape the written text holds: its level and
  /// why, with the alternative that matched its first group.
  std::optional<std::pair<Level, std::string>> PlantedIn(const WriteContent& content) const;
  /// The runs_later_content judge for a folded path, or null.
  const ContentJudge* JudgeFor(std::string_view folded_path) const;
  /// Whether the shell pattern `pattern` names a sensitive file that exists.
  bool ExpandsToSensitive(std::string_view pattern) const;
  /// A file's text as it is now (nullopt: absent, unreadable, over 1 MiB).
  std::optional<std::string> FileText(std::string_view path) const;
  /// Per command of one lexed line: has a command substitution among its
  /// words; is a function whose body calls it.
  struct LineFacts {
    std::vector<bool> substituted, recursive;
  };
  static LineFacts FactsOf(const LexResult& lex);
  /// One simple command of a lexed line: its assignments, redirections and
  /// words (walker.cpp).
  void Simple(const LexResult& lex, std::size_t index, const LineFacts& facts, SegmentOrigin origin,
              int code_depth);
  /// Each file a redirection writes or reads; a file the command's output
  /// goes to gets what it prints, when the line shows it (PrintedText).
  void CheckRedirections(const SimpleCommand& command);
  /// What a command prints, when its line shows it: the arguments of an
  /// echo or a printf (the format among them), the heredoc or here-string a
  /// bare `cat` is fed. The printer is found as Words finds the command it
  /// judges (UnwrappedCommand): `/bin/echo`, `env printf`, `sudo cat`.
  struct Printed {
    std::string text;
    /// The printer is the first word, spelt as its own name (`echo`, not
    /// `/bin/echo` or `env echo`): see Stdin::spelt_otherwise.
    bool by_name = false;
  };
  std::optional<Printed> PrintedText(const SimpleCommand& command) const;
  /// Where a command's stdin comes from: its last heredoc or here-string,
  /// else the command piping into it (with the text it prints, PrintedText).
  Stdin StdinOf(const LexResult& lex, const SimpleCommand& command) const;
  /// Records a shell variable set alone (`NAME=value`, no command) when its
  /// value is known as written; forgets it otherwise.
  void TrackValue(std::string_view assignment);
  /// The words with the line's known variables expanded, an unquoted `$x`
  /// split where its value has spaces (`c="rm -rf ~"; $c`); null when no
  /// word names one.
  std::optional<std::vector<Word>> KnownValues(const std::vector<Word>& words) const;

  // A command's words from `start` on, through the tables (command_walk.cpp).
  // Words runs these steps in order. The findings of the paths a command
  // names go after its own finding, and an option the tables do not know
  // comes last, so that the command explains itself first.

  /// A command as the tables see it: the entries its words name and what
  /// their rules make of it (JudgeCommand).
  struct JudgedCommand {
    std::vector<PathStep> path;  // the program's entry, then each subcommand its words name
    std::string label;           // the words that named them (`git stash drop`)
    Level level = Level::kL0;
    std::string why;
    bool rule_matched = false;            // an argument rule set the level
    const CommandNode* runner = nullptr;  // the deepest entry that runs something (`runs`)
    std::size_t runner_index = 0;         // the index of the word that named it
  };
  void Words(const std::vector<Word>& words, std::size_t start, const Stdin& stdin_source,
             std::string_view segment, int code_depth);
  /// `RM -RF`: a program named in capitals, judged as written and lowered.
  void BothSpellings(const std::vector<Word>& words, std::size_t start, const Stdin& stdin_source,
                     std::string_view segment, int code_depth);
  /// The entry of a program name (`python3.12` falls back to `python3`), or null.
  const CommandNode* FindProgram(const std::string& name) const;
  /// The table entry that lists `name` exactly as written, as its own name
  /// or an alias ("tar" for gtar; "" when none does): an analyser that
  /// singles out a program asks this, so every name the table gives it counts.
  std::string_view EntryName(std::string_view name) const;
  void UnknownProgram(const std::vector<Word>& words, std::size_t start, std::string_view segment);
  JudgedCommand JudgeCommand(const CommandNode& program, const std::vector<Word>& words,
                             std::size_t start) const;
  /// The first argument rule that matches, along the path, sets the level
  /// and reason; a rule higher up only raises them.
  void ApplyRules(JudgedCommand& command, const std::vector<Word>& words, std::size_t start) const;
  /// After `cd /tmp`, the words as the rules should see them: relative
  /// operands as the scratch paths they are (empty: the words as written).
  std::vector<Word> WordsInScratch(const std::vector<Word>& words, std::size_t start,
                                   bool in_project) const;
  /// Why a command that would be L0/L1 is not known to be safe: an option no
  /// safe_options list names, or an operand more than it reads (empty: none).
  std::string UnknownOptionReason(const JudgedCommand& command,
                                  const std::vector<Word>& words) const;
  /// The paths a command names, reads and writes.
  void CheckPaths(const JudgedCommand& command, const CommandNode& program,
                  const std::vector<Word>& words, const Stdin& stdin_source,
                  std::string_view segment);
  void CheckWrittenOperand(const JudgedCommand& command, const std::vector<Word>& words,
                           std::string_view segment);
  /// Returns whether the command copies a documented example to a new file
  /// (`cp .env.example .env.local`).
  bool CheckNamedPaths(const JudgedCommand& command, const CommandNode& program,
                       const std::vector<Word>& words, std::string_view segment);
  /// The files a writes_args/writes_last_arg command writes; a writes_stdin
  /// command's get the text its stdin is known to hold.
  void CheckWrittenArgs(const JudgedCommand& command, const std::vector<Word>& words,
                        bool example_copy, const Stdin& stdin_source, std::string_view segment);
  /// `export NAME=v`, `declare -x NAME=v`, `local NAME=v`: the assignments
  /// among a declaring builtin's words.
  void CheckDeclaredVariables(std::string_view name, const std::vector<Word>& words,
                              std::size_t from, std::string_view segment);
  /// The command's own finding, then what its runner entry runs (a wrapped
  /// command, find's -exec, a code string).
  void RunWhatItRuns(const JudgedCommand& command, const std::vector<Word>& words,
                     const Stdin& stdin_source, std::string_view segment, int code_depth);
  void Wrapper(const JudgedCommand& command, const std::vector<Word>& words,
               const Stdin& stdin_source, std::string_view segment, int code_depth);
  /// A wrapper's own words, from its runner entry up to the command it runs.
  struct WrapperWords {
    /// A word on the way that does something, in the order written.
    struct Step {
      enum class Kind { kCode, kAssignment, kReadsFile } kind;
      std::string_view text;  // the code string, `NAME=value`, the file's name
    };
    std::vector<Step> steps;
    std::size_t command = 0;  // the first word of the command it runs (≥ words.size(): none)
    std::size_t query = 0;    // a query option's index: it only looks the command up (0: none)
    std::string replace;      // xargs -I STR: where each input line goes
    std::string arg_file;     // xargs -a FILE: where the input comes from instead of stdin
  };
  /// Reads a wrapper's words as getopt does: its options (a value in the next
  /// word, in a cluster too unless the entry is single_dash_long), code
  /// options, `NAME=value`, skip_positionals and `--`, up to the command it
  /// runs. Wrapper judges what they do; UnwrappedCommand only follows them.
  static WrapperWords ScanWrapper(const JudgedCommand& command, const std::vector<Word>& words);
  /// The command words run once the wrappers Words follows are peeled
  /// (`sudo -u me nice /usr/bin/printf …` runs printf): its entry and the
  /// index of the word that names it. No entry when the words do not show
  /// one (a variable, a wrapper's code string, the words xargs reads).
  struct Unwrapped {
    const CommandNode* entry = nullptr;
    std::size_t start = 0;
  };
  Unwrapped UnwrappedCommand(const std::vector<Word>& words) const;
  /// xargs fed from a file's content (`-a FILE`, `< FILE`, `cat FILE |`):
  /// the words it appends are known only at run time.
  void UnknownInput(const CommandNode& node, std::string_view arg_file, const Stdin& stdin_source,
                    std::string_view segment);
  void FindExec(const std::vector<Word>& words, std::size_t index, std::string_view segment,
                int code_depth);
  std::size_t FindingCount() const { return findings_ != nullptr ? findings_->size() : 0; }
  /// Moves the findings [begin, end) after those added since.
  void MoveToEnd(std::size_t begin, std::size_t end);

  // Code handed to shells, interpreters and SQL clients (code_strings.cpp).
  void Code(const CommandNode& node, Level level, const std::vector<Word>& words, std::size_t index,
            const Stdin& stdin_source, std::string_view segment, std::string_view name,
            int code_depth);
  /// The code a program runs whose level a rule set (nix-shell -p EXPR
  /// --run CMD, php -S ADDR -r CODE): judged as well, the higher level wins.
  void RuledCode(const CommandNode& node, const std::vector<Word>& words, std::size_t index,
                 std::string_view segment, int code_depth);
  /// A command string, a script or stdin is walked as a command line.
  void ShellCode(Level level, const CodeOperands& operands, const Stdin& stdin_source,
                 std::string_view segment, const std::string& quoted_name, int code_depth);
  /// A shell or interpreter given no code, no script and no stdin: on this
  /// machine what it runs is not visible; inside a container it is how a
  /// person goes in. `kind`: "shell interpreter" or "interpreter".
  void BareInterpreter(Level level, const std::string& quoted_name, std::string_view kind,
                       std::string_view segment);
  /// Code is scanned for the entry's code_rules, not parsed.
  void InterpreterCode(const CommandNode& node, Level level, const std::vector<Word>& words,
                       std::size_t index, CodeOperands operands, const Stdin& stdin_source,
                       std::string_view segment, const std::string& quoted_name);
  Level ScanText(const CommandNode& node, std::string_view code, std::string* why) const;
  /// `exported`: the variable reaches the programs started (`NAME=v cmd`,
  /// `export`, `env NAME=v`, `declare -x`), not only the shell.
  void CheckAssignment(std::string_view assignment, std::string_view segment, bool exported);
  /// Expansions that run code kept in a variable (`${x@P}`, `${!name}`) and
  /// substitutions stored as text for them (hidden_code.cpp).
  void HiddenCode(const SimpleCommand& command, bool substituted, std::string_view segment);

  // Program-specific analysers (program_analysers.cpp, package_scripts.cpp,
  // windows_shells.cpp, guard_paths.cpp): what a command runs or touches
  // through its own options, scripts and arguments.
  void AnalyseProgram(const JudgedCommand& command, std::string_view name,
                      const std::vector<Word>& words, std::size_t start, std::string_view segment,
                      int code_depth);
  void GitElsewhere(const CommandNode& entry, const std::vector<Word>& words, std::size_t start,
                    std::string_view segment);
  void SedScript(const std::vector<Word>& words, std::size_t start, std::string_view segment);
  /// The scripts of -e/--expression (or the first operand); a script read
  /// from a file is a finding of its own.
  std::vector<std::string_view> SedScriptsGiven(const std::vector<Word>& words, std::size_t start,
                                                std::string_view segment);
  /// The commands of one sed script that run commands (`e`, `s///e`) or
  /// read and write files (`r`, `w`, `s///w`).
  void SedCommands(std::string_view script, std::string_view segment);
  void AwkProgram(const std::vector<Word>& words, std::size_t start, std::string_view segment);
  void ShellBodies(std::string_view name, const std::vector<Word>& words, std::size_t start,
                   std::string_view segment, int code_depth);
  void SecretsShown(std::string_view name, std::string_view entry_name,
                    const std::vector<Word>& words, std::size_t start, std::string_view segment);
  void PackageScript(const CommandNode& entry, const std::vector<Word>& words, std::size_t start,
                     std::string_view segment, int code_depth);
  struct ScriptCall;  // package_scripts.cpp
  ScriptCall NamedScript(const CommandNode& entry, const std::vector<Word>& words,
                         std::size_t start) const;
  void WindowsShell(Level level, const std::vector<Word>& words, std::size_t index,
                    std::string_view segment, std::string_view name, int code_depth);
  /// `cd DIR` moves where later relative paths point; `ln -s T L` makes L point at T.
  void TrackDirectory(std::string_view name, const std::vector<Word>& words, std::size_t start);
  /// A word of a command that changes something, naming the guard's own files.
  void CheckGuardWord(std::string_view word, Level level, bool copy_source, bool sql,
                      std::string_view statement, std::string_view segment);
  /// Searching where credentials live for secrets, or finding and printing
  /// credential-looking files (credential_hunting.cpp).
  void CredentialSearch(const CommandNode& entry, std::string_view name,
                        std::string_view entry_name, const std::vector<Word>& words,
                        std::size_t start, std::string_view segment);
  /// `entry_name`: find or fd.
  void FindCredentials(std::string_view entry_name, const std::vector<Word>& words,
                       std::size_t start, std::string_view segment);
  /// A search for secrets in what the command piping into it reads, when
  /// that names where credentials live.
  bool FiltersSecretPlace(Level level, std::string_view segment);
  /// The home directory, its dot-folders, other homes, / or /etc.
  bool SecretPath(std::string_view path) const;
  /// A file in a home dot-folder whose name says it holds a secret.
  bool SecretLookingFile(std::string_view path) const;
  /// .npmrc, .yarnrc(.yml), bunfig.toml in `directory` that replace the shell
  /// or load code into the scripts a package manager runs.
  void RunnerSettings(const std::string& directory, std::string_view segment);
  /// A write followed by a command that runs project code (tests, builds).
  void WriteThenRun(const CommandNode& entry, Level level, std::string_view segment);

  const Tables& tables_;
  std::string project_;       // the directory the agent runs in
  std::string project_real_;  // … where it is on disk (links followed)
  LineState line_;
  // The last Resolve: one path is resolved by every check that judges it
  // (where it leads, inside the project, the guard's files), and each
  // resolution reads the file system once per component.
  struct ResolvedPath {
    std::string path, cwd, result;
    bool cwd_unknown = false;
    std::size_t links = 0;
  };
  mutable ResolvedPath last_resolved_;
  std::vector<Finding>* findings_;
  std::vector<ExecutedSegment>* segments_;
};

}  // namespace togmal::policy
