// `togmal install` then `togmal uninstall`, through the built binary in a
// temporary HOME and project: every host's files come back byte for byte
// whatever their layout, and the folder tree (every file and folder) is what
// it was; --dry-run announces exactly what the real run then does; Claude
// Code's CLI says nothing through togmal unless it fails; doctor shows each
// file once, the MCP server, the backups and what the person must still do.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "process.h"
#include "system_root.h"
#include "togmal/install/text_diff.h"

namespace togmal {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using testing::ProcessOutput;
using testing::RunProcess;
using testing::TogmalBinary;

constexpr const char* kClaudeState = "home/.claude.json";

// Every file (with its bytes) and folder under a root.
using Tree = std::map<std::string, std::string>;

Tree Snapshot(const fs::path& root) {
  Tree tree;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string name = entry.path().lexically_relative(root).string();
    if (entry.is_directory()) {
      tree[name + "/"] = "";
    } else {
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      tree[name] = text.str();
    }
  }
  return tree;
}

// The paths whose presence or bytes differ.
std::set<std::string> Changed(const Tree& a, const Tree& b) {
  std::set<std::string> changed;
  for (const auto& [name, text] : a) {
    auto it = b.find(name);
    if (it == b.end() || it->second != text) changed.insert(name);
  }
  for (const auto& [name, text] : b) {
    if (a.count(name) == 0) changed.insert(name);
  }
  return changed;
}

std::string Show(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += "  " + name + "\n";
  return text;
}

// How a person may have laid out their file.
struct Layout {
  const char* name;
  int indent;  // -1: one line
  bool spaced;
  bool final_newline;
  bool crlf = false;  // Windows line ends
};
constexpr Layout kLayouts[] = {
    {"compact", -1, false, false}, {"one-line spaced", -1, true, true},
    {"two spaces", 2, true, true}, {"four spaces", 4, true, false},
    {"tabs", 1, true, true},       {"two spaces, CRLF", 2, true, true, true}};

std::string Lay(const json& value, const Layout& layout) {
  std::string text;
  if (layout.indent < 0) {
    text = value.dump();
    if (layout.spaced) {
      // nlohmann writes no spaces on one line; a person's editor may.
      std::string spaced;
      bool in_string = false;
      for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        spaced += c;
        if (in_string) {
          if (c == '\\') spaced += text[++i];
          if (c == '"') in_string = false;
        } else if (c == '"') {
          in_string = true;
        } else if (c == ':' || c == ',') {
          spaced += ' ';
        }
      }
      text = spaced;
    }
  } else {
    text = value.dump(layout.indent, layout.name == std::string("tabs") ? '\t' : ' ');
  }
  if (layout.final_newline) text += "\n";
  if (layout.crlf) {
    std::string crlf;
    for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    text = crlf;
  }
  return text;
}

class InstallTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path();
    home_ = root_ / "home";
    project_ = root_ / "proj";
    bin_ = root_ / "bin";
    fs::create_directories(home_);
    fs::create_directories(project_);
    fs::create_directories(bin_);
    env_ = {{"HOME", home_.string()},
            {"XDG_DATA_HOME", (root_ / "data").string()},
            {"XDG_CONFIG_HOME", (home_ / ".config").string()},
            {"TOGMAL_DB", (root_ / "togmal.db").string()},
            {"CODEX_HOME", std::nullopt},
            {"COPILOT_HOME", std::nullopt},
            {"TOGMAL_LOG", std::nullopt},
            {"PATH", bin_.string() + ":/usr/bin:/bin"}};
  }

  ProcessOutput Togmal(std::vector<std::string> args) {
    args.insert(args.begin(), TogmalBinary());
    return RunProcess(args, "", env_, std::chrono::seconds(60));
  }
  static void Write(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
  }
  static std::string Read(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // home/… and proj/… together, the data folder (togmal's own) left out.
  // `with_claude_state` false leaves out ~/.claude.json too: Claude Code's
  // own state file, which `claude mcp` (and every run of Claude Code)
  // rewrites; togmal never writes it.
  Tree Both(bool with_claude_state = true) {
    Tree tree;
    for (const auto& [name, text] : Snapshot(home_)) {
      if (with_claude_state || "home/" + name != kClaudeState) tree["home/" + name] = text;
    }
    for (const auto& [name, text] : Snapshot(project_)) tree["proj/" + name] = text;
    return tree;
  }

  // A stand-in for Claude Code's CLI: `mcp add|remove --scope user|local`
  // write ~/.claude.json as the real one does, and chatter on both streams
  // as the real one does. `fail` makes every call fail with a message.
  void FakeClaude(bool fail = false) {
    const std::string state = (home_ / ".claude.json").string();
    Write(bin_ / "claude",
          "#!/bin/sh\n"
          "echo \"$(pwd) $*\" >> '" +
              (root_ / "claude.log").string() +
              "'\n"
              "echo 'Claude Code chatter on stdout'\n"
              "echo 'No MCP server named \"togmal\" (stderr chatter)' >&2\n" +
              (fail ? "echo 'boom: the config is locked' >&2; exit 1\n" : "") +
              "server='{\"type\": \"stdio\", \"command\": \"'\"$7\"'\", \"args\": [\"serve\"], "
              "\"env\": {}}'\n"
              "case \"$2 $4\" in\n"
              "  'add user') echo \"{\\\"mcpServers\\\": {\\\"togmal\\\": $server}}\" > '" +
              state +
              "' ;;\n"
              "  'add local') echo \"{\\\"projects\\\": {\\\"$(pwd)\\\": {\\\"mcpServers\\\": "
              "{\\\"togmal\\\": $server}}}}\" > '" +
              state +
              "' ;;\n"
              "  'remove '*) echo '{}' > '" +
              state +
              "' ;;\n"
              "esac\n");
    ::chmod((bin_ / "claude").c_str(), 0755);
  }

  testing::TempDir dir_;
  fs::path root_, home_, project_, bin_;
  testing::EnvChanges env_;
};

// What a person's settings may already hold, per host file: other hooks,
// other servers, numbers written their own way.
json Existing(const std::string& host) {
  if (host == "claude-desktop") {
    return json{{"mcpServers", {{"other", {{"command", "x"}, {"args", json::array()}}}}},
                {"theme", "dark"}};
  }
  if (host == "cursor") {
    return json{{"version", 1}, {"hooks", {{"stop", {{{"command", "./stop.sh"}}}}}}};
  }
  return json{{"theme", "dark"},
              {"hooks", {{"Stop", {{{"hooks", {{{"type", "command"}, {"command", "notify"}}}}}}}}},
              {"env", {{"ZED", "1"}, {"ALPHA", "2"}}}};
}

struct Case {
  const char* host;
  const char* scope;
  std::vector<std::string> files;  // relative to root_: what the person had
};

std::vector<Case> Cases() {
  return {{"claude-code", "user", {"home/.claude/settings.json"}},
          {"claude-code", "project", {"proj/.claude/settings.json", "proj/.mcp.json"}},
          {"claude-code", "local", {"proj/.claude/settings.local.json"}},
          {"claude-desktop", "user", {"home/.config/Claude/claude_desktop_config.json"}},
          {"gemini", "user", {"home/.gemini/settings.json"}},
          {"gemini", "project", {"proj/.gemini/settings.json"}},
          {"codex", "user", {"home/.codex/hooks.json"}},
          {"codex", "project", {"proj/.codex/hooks.json"}},
          {"copilot", "user", {}},  // togmal's own file in ~/.copilot/hooks/
          {"copilot", "project", {}},
          {"cursor", "user", {"home/.cursor/hooks.json"}},
          {"cursor", "project", {"proj/.cursor/hooks.json"}}};
}

// The round trip on every host and scope, for each layout a person's file
// may have (one line with or without spaces, two or four spaces, tabs,
// Windows line ends) and for no file at all: after uninstall the tree is what it was.
TEST_F(InstallTrace, EveryHostComesBackByteForByteWhateverTheLayout) {
  FakeClaude();
  // Folders that are the person's, with other things in them, stay.
  Write(project_ / ".github/workflows/ci.yml", "on: push\n");
  Write(home_ / ".gemini/oauth_creds.json", "{}");
  for (const Case& c : Cases()) {
    const int hand_written = static_cast<int>(std::size(kLayouts));
    for (int variant = -1; variant <= hand_written; ++variant) {
      const std::string what = std::string(c.host) + " --scope " + c.scope + ", " +
                               (variant < 0               ? "no file before"
                                : variant == hand_written ? "written by hand"
                                                          : kLayouts[variant].name);
      for (const std::string& file : c.files) {
        fs::remove(root_ / file);
        if (variant < 0) continue;
        if (variant == hand_written) {
          // Spacing no serialiser writes, and an empty object that install
          // fills: only putting the original back restores this.
          Write(root_ / file, "{ \"hooks\" : { } , \"mcpServers\" :{ },\"n\" : 1.0 }\n");
          continue;
        }
        const json value = file.ends_with(".mcp.json")
                               ? json{{"mcpServers", {{"db", {{"command", "pg-mcp"}}}}}}
                               : Existing(c.host);
        Write(root_ / file, Lay(value, kLayouts[variant]));
      }
      const Tree before = Both(false);
      const std::vector<std::string> where = {c.host, "--scope", c.scope, "--dir",
                                              project_.string()};
      std::vector<std::string> install = {"install"};
      install.insert(install.end(), where.begin(), where.end());
      std::vector<std::string> uninstall = {"uninstall"};
      uninstall.insert(uninstall.end(), where.begin(), where.end());

      ProcessOutput in = Togmal(install);
      ASSERT_EQ(in.exit_code, 0) << what << "\n" << in.out << in.err;
      const Tree installed = Both(false);
      EXPECT_FALSE(Changed(before, installed).empty()) << what << ": install changed nothing";
      for (const std::string& file : c.files) {
        const std::string text = Read(root_ / file);
        EXPECT_NE(text.find("togmal"), std::string::npos) << what << ": " << file << "\n" << text;
        if (variant >= 0 && variant < hand_written && kLayouts[variant].indent < 0) {
          EXPECT_EQ(text.find('\n'),
                    kLayouts[variant].final_newline ? text.size() - 1 : std::string::npos)
              << what << ": a one-line file stays on one line:\n"
              << text;
        }
        EXPECT_TRUE(json::accept(text)) << what << ": " << text;
        if (variant >= 0 && variant < hand_written && kLayouts[variant].crlf) {
          EXPECT_EQ(text.find("\n"), text.find("\r\n") + 1) << what << ": line ends kept";
          std::size_t lone = 0;
          for (std::size_t i = 0; i < text.size(); ++i) {
            if (text[i] == '\n' && (i == 0 || text[i - 1] != '\r')) ++lone;
          }
          EXPECT_EQ(lone, 0u) << what << ": no bare \\n in a CRLF file:\n" << text;
        }
      }
      ProcessOutput again = Togmal(install);
      ASSERT_EQ(again.exit_code, 0) << what << "\n" << again.err;
      EXPECT_EQ(Both(false), installed) << what << ": a second install changes nothing\n"
                                        << Show(Changed(installed, Both(false)));

      ProcessOutput out = Togmal(uninstall);
      ASSERT_EQ(out.exit_code, 0) << what << "\n" << out.out << out.err;
      const Tree after = Both(false);
      EXPECT_EQ(after, before) << what << ": left behind or changed:\n"
                               << Show(Changed(before, after)) << out.out;
      // Nothing of the host CLI's chatter reaches togmal's output.
      for (const ProcessOutput* run : {&in, &again, &out}) {
        EXPECT_EQ(run->out.find("chatter"), std::string::npos) << what << "\n" << run->out;
        EXPECT_EQ(run->err.find("chatter"), std::string::npos) << what << "\n" << run->err;
      }
    }
  }
  // Claude Code's state file holds no togmal server any more.
  EXPECT_EQ(Read(home_ / ".claude.json").find("togmal"), std::string::npos);
  // No backups beside the person's files: one per file, in togmal's data folder.
  for (const auto& [name, text] : Both(false)) {
    EXPECT_EQ(name.find("togmal-backup"), std::string::npos) << name;
  }
}

// `--scope managed` writes Claude Code's managed settings (/etc/claude-code,
// fixed at build time): here a folder of the test's, mounted there in a mount
// namespace. A fragment of togmal's own in managed-settings.d/ running the
// binary by its absolute path; the MCP server only in a managed-mcp.json the
// administrator deployed; --dry-run shows exactly that; uninstall puts the
// folder back byte for byte.
TEST_F(InstallTrace, ManagedScopeComesBackByteForByte) {
  if (std::string why = testing::SystemRootUnavailable(); !why.empty()) GTEST_SKIP() << why;
  const fs::path managed = root_ / "etc-claude-code";
  const fs::path system = root_ / "etc-togmal";
  fs::create_directories(system);
  fs::create_directories(root_ / "scratch");
  const fs::path in_namespace = util::ClaudeManagedDir();
  const std::string binary = fs::canonical(TogmalBinary()).string();
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), TogmalBinary());
    return RunProcess(testing::InSystemRoot(root_ / "scratch", system, managed, args), "", env_,
                      std::chrono::seconds(60));
  };
  for (const bool with_mcp : {false, true}) {
    fs::remove_all(managed);
    Write(managed / "managed-settings.json",
          "{\n  \"allowManagedHooksOnly\": true,\n  \"permissions\": {\"deny\": "
          "[\"Read(./.env)\"]}\n}\n");
    Write(managed / "managed-settings.d/10-other.json", R"({"hooks": {"Stop": []}})");
    if (with_mcp) Write(managed / "managed-mcp.json", R"({"mcpServers":{"db":{"command":"pg"}}})");
    const std::string what = with_mcp ? "with managed-mcp.json" : "without managed-mcp.json";
    const Tree before = Snapshot(managed);
    const std::vector<std::string> where = {"claude-code", "--scope", "managed"};
    std::vector<std::string> install = {"install"};
    install.insert(install.end(), where.begin(), where.end());

    std::vector<std::string> dry_args = install;
    dry_args.push_back("--dry-run");
    ProcessOutput dry = run(dry_args);
    ASSERT_EQ(dry.exit_code, 0) << what << dry.out << dry.err;
    EXPECT_EQ(Snapshot(managed), before) << what << ": the dry run wrote something";
    const fs::path fragment = in_namespace / "managed-settings.d/50-togmal.json";
    EXPECT_NE(dry.out.find("would create " + fragment.string() + "\n"), std::string::npos)
        << dry.out;

    ProcessOutput in = run(install);
    ASSERT_EQ(in.exit_code, 0) << what << in.out << in.err;
    const json hooks = json::parse(Read(managed / "managed-settings.d/50-togmal.json"));
    for (const char* event :
         {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionDenied", "PostToolBatch"}) {
      ASSERT_TRUE(hooks["hooks"].contains(event)) << what << hooks.dump();
      EXPECT_EQ(hooks["hooks"][event][0]["hooks"][0]["command"], binary + " hook") << what;
    }
    EXPECT_EQ(Read(managed / "managed-settings.json"), before.at("managed-settings.json"));
    EXPECT_EQ(fs::exists(managed / "managed-mcp.json"), with_mcp)
        << what << ": togmal never creates managed-mcp.json";
    if (with_mcp) {
      const json mcp = json::parse(Read(managed / "managed-mcp.json"));
      EXPECT_EQ(mcp["mcpServers"]["togmal"]["command"], binary) << mcp.dump();
      EXPECT_EQ(mcp["mcpServers"]["db"]["command"], "pg");
    } else {
      EXPECT_NE(in.out.find("note: the MCP server is not registered for everyone"),
                std::string::npos)
          << in.out;
    }
    EXPECT_EQ(Read(root_ / "claude.log"), "") << "no `claude mcp` for the managed scope";
    ProcessOutput doctor = run({"doctor", "--dir", project_.string()});
    EXPECT_NE(doctor.out.find("claude-code (managed): hook in " + fragment.string() +
                              " runs togmal hook"),
              std::string::npos)
        << doctor.out;
    const Tree installed = Snapshot(managed);
    ASSERT_EQ(run(install).exit_code, 0);
    EXPECT_EQ(Snapshot(managed), installed) << what << ": a second install changes nothing";

    ProcessOutput out = run({"uninstall", "claude-code", "--scope", "managed"});
    ASSERT_EQ(out.exit_code, 0) << what << out.out << out.err;
    EXPECT_EQ(Snapshot(managed), before) << what << ": left behind or changed:\n"
                                         << Show(Changed(before, Snapshot(managed))) << out.out;
  }
}

// Removing every togmal entry from a file the person changed since install
// keeps the change and the file's layout: only togmal's bytes go.
TEST_F(InstallTrace, AFileChangedSinceInstallKeepsTheChange) {
  const fs::path settings = home_ / ".gemini/settings.json";
  const std::string before = R"({"theme":"dark","hooks":{}})";
  Write(settings, before);
  ASSERT_EQ(Togmal({"install", "gemini"}).exit_code, 0);
  std::string edited = Read(settings);
  edited.replace(edited.find("\"dark\""), 6, "\"light\"");
  Write(settings, edited);
  ProcessOutput out = Togmal({"uninstall", "gemini"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(Read(settings), R"({"theme":"light","hooks":{}})");
  EXPECT_NE(out.out.find("only togmal's entries were taken out"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("(backup: "), std::string::npos) << out.out;
}

// --dry-run prints, for each change, the line the real run prints (with
// "would"), the same diff, and nothing that the real run then does not do.
TEST_F(InstallTrace, DryRunSaysExactlyWhatTheRealRunDoes) {
  FakeClaude();
  // A user-scope server exists already: the project-scope install still
  // adds the project's .mcp.json (the dry run says so, the real run does so).
  Write(home_ / ".claude.json", R"({"mcpServers": {"togmal": {"type": "stdio", "command": ")" +
                                    fs::canonical(TogmalBinary()).string() +
                                    R"(", "args": ["serve"], "env": {}}}})");
  Write(project_ / ".claude/settings.json", R"({"model":"opus"})");
  Write(project_ / ".cursor/hooks.json", "{\n    \"version\": 1\n}\n");
  auto summary = [](const std::string& output) {
    std::vector<std::string> lines;
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == ' ' || line[0] == '+' || line[0] == '-' || line[0] == '@') {
        continue;  // diffs and notes
      }
      lines.push_back(line);
    }
    return lines;
  };
  for (const char* verb : {"install", "uninstall"}) {
    for (const char* host : {"claude-code", "cursor", "copilot", "codex"}) {
      for (const char* scope : {"project", "user"}) {
        const std::string what = std::string(verb) + " " + host + " --scope " + scope;
        const std::vector<std::string> args = {verb,  host,    "--scope",
                                               scope, "--dir", project_.string()};
        const Tree before = Both();
        std::vector<std::string> dry_args = args;
        dry_args.push_back("--dry-run");
        ProcessOutput dry = Togmal(dry_args);
        ASSERT_EQ(dry.exit_code, 0) << what << dry.err;
        ASSERT_EQ(Both(), before) << what << ": the dry run wrote something";
        ProcessOutput real = Togmal(args);
        ASSERT_EQ(real.exit_code, 0) << what << real.err;
        const Tree after = Both();

        // The same lines, "would create" for "created", "would run" for "ran".
        std::vector<std::string> expected;
        for (std::string line : summary(dry.out)) {
          if (line.rfind("would run ", 0) == 0) {
            line = "ran " + line.substr(10);
          } else if (line.rfind("would ", 0) == 0) {
            const std::size_t space = line.find(' ', 6);
            line = line.substr(6, space - 6) + "d" + line.substr(space);
          }
          expected.push_back(line);
        }
        EXPECT_EQ(summary(real.out), expected) << what << "\ndry run:\n"
                                               << dry.out << "real run:\n"
                                               << real.out;
        if (what == "install claude-code --scope project") {
          // The user-scope server does not stop the project's .mcp.json.
          const std::string mcp = (project_ / ".mcp.json").string();
          EXPECT_NE(dry.out.find("would create " + mcp + "\n"), std::string::npos) << dry.out;
          EXPECT_NE(real.out.find("created " + mcp + "\n"), std::string::npos) << real.out;
          EXPECT_TRUE(fs::exists(mcp));
        }
        // Every path the run changed was announced, with the same diff.
        for (const std::string& name : Changed(before, after)) {
          if (name == kClaudeState) continue;  // written by the announced `claude mcp`
          const fs::path path = root_ / name;
          const std::string shown =
              name.ends_with("/") ? path.parent_path().string() : path.string();
          EXPECT_TRUE(dry.out.find(" " + shown + "\n") != std::string::npos ||
                      dry.out.find(" " + shown + " (backup: ") != std::string::npos)
              << what << ": " << name << " changed unannounced\n"
              << dry.out;
          if (!name.ends_with("/")) {
            const auto was = before.find(name);
            const auto now = after.find(name);
            const std::string diff =
                install::UnifiedDiff(was == before.end() ? "" : was->second,
                                     now == after.end() ? "" : now->second, path.string());
            EXPECT_NE(dry.out.find(diff), std::string::npos) << what << ": " << diff;
          }
        }
      }
    }
  }
  EXPECT_FALSE(fs::exists(project_ / ".mcp.json"));
  EXPECT_NE(Read(root_ / "claude.log").find("mcp remove --scope user togmal"), std::string::npos);
}

TEST_F(InstallTrace, ClaudeOnPathRegistersTheMcpServerOnce) {
  FakeClaude();
  const std::vector<std::string> local = {"claude-code", "--scope", "local", "--dir",
                                          project_.string()};
  std::vector<std::string> install = {"install"};
  install.insert(install.end(), local.begin(), local.end());
  ProcessOutput first = Togmal(install);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("ran claude mcp add --scope local togmal -- "), std::string::npos)
      << first.out;
  ProcessOutput second = Togmal(install);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find("MCP server togmal: already registered (local scope, "),
            std::string::npos)
      << second.out;
  const std::string calls = Read(root_ / "claude.log");
  const std::string add = project_.string() + " mcp add --scope local togmal -- " +
                          fs::canonical(TogmalBinary()).string() + " serve";
  EXPECT_NE(calls.find(add), std::string::npos) << calls;
  EXPECT_EQ(calls.find(add), calls.rfind(add)) << "added once: " << calls;
  std::vector<std::string> uninstall = {"uninstall"};
  uninstall.insert(uninstall.end(), local.begin(), local.end());
  ASSERT_EQ(Togmal(uninstall).exit_code, 0);
  EXPECT_NE(Read(root_ / "claude.log").find("mcp remove --scope local togmal"), std::string::npos);
  // Nothing left to remove: claude is not even asked (it would only complain).
  ProcessOutput again = Togmal(uninstall);
  EXPECT_NE(again.out.find("MCP server togmal: not registered (local scope"), std::string::npos)
      << again.out;
  EXPECT_EQ(Read(root_ / "claude.log").find("remove"), Read(root_ / "claude.log").rfind("remove"));
}

TEST_F(InstallTrace, AFailingHostCliIsReportedInTogmalsWords) {
  FakeClaude(/*fail=*/true);
  ProcessOutput out = Togmal({"install", "claude-code"});
  EXPECT_EQ(out.exit_code, 1) << out.out << out.err;
  EXPECT_NE(out.err.find("togmal: Claude Code's CLI did not register the MCP server: `claude mcp "
                         "add --scope user togmal -- "),
            std::string::npos)
      << out.err;
  EXPECT_NE(out.err.find("failed (exit 1): boom: the config is locked\n"), std::string::npos)
      << out.err;
  EXPECT_EQ(out.err.find("chatter"), std::string::npos) << out.err;
  EXPECT_EQ(out.out.find("chatter"), std::string::npos) << out.out;
}

TEST_F(InstallTrace, OneBackupPerFileReplacedByTheNextInstallAndListedByDoctor) {
  const fs::path settings = home_ / ".cursor/hooks.json";
  Write(settings, R"({"version":1})");
  ASSERT_EQ(Togmal({"install", "cursor"}).exit_code, 0);
  ASSERT_EQ(Togmal({"uninstall", "cursor"}).exit_code, 0);
  Write(settings, R"({"version":1,"hooks":{}})");
  ASSERT_EQ(Togmal({"install", "cursor"}).exit_code, 0);
  std::vector<fs::path> backups;
  for (const auto& entry : fs::recursive_directory_iterator(root_)) {
    if (entry.is_regular_file() &&
        (entry.path().string().find("/backups/") != std::string::npos ||
         entry.path().filename().string().find("backup") != std::string::npos)) {
      backups.push_back(entry.path());
    }
  }
  ASSERT_EQ(backups.size(), 1u) << (backups.empty() ? "none" : backups.back().string());
  EXPECT_EQ(Read(backups.front()), R"({"version":1,"hooks":{}})");
  // What an older togmal left beside the file is pointed out.
  const fs::path legacy = home_ / ".cursor/hooks.json.togmal-backup-20261126T185500Z";
  Write(legacy, "{}");
  ProcessOutput doctor = Togmal({"doctor", "--dir", project_.string()});
  EXPECT_NE(doctor.out.find("backups"), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find(legacy.string() + ": left by an older togmal"), std::string::npos)
      << doctor.out;
  EXPECT_NE(doctor.out.find(settings.string() + ": " + backups.front().string()), std::string::npos)
      << doctor.out;
}

TEST_F(InstallTrace, DoctorFromHomeShowsTheFileOnceWithTheMcpServer) {
  FakeClaude();
  ASSERT_EQ(Togmal({"install", "claude-code"}).exit_code, 0);
  ProcessOutput doctor = Togmal({"doctor", "--dir", home_.string()});
  const std::string hosts = doctor.out.substr(0, doctor.out.find("\nconfiguration"));
  const std::string file = (home_ / ".claude/settings.json").string();
  ASSERT_NE(hosts.find(file), std::string::npos) << hosts;
  EXPECT_EQ(hosts.find(file), hosts.rfind(file)) << "shown once:\n" << hosts;
  EXPECT_NE(hosts.find("ok       claude-code (user): MCP server togmal in " +
                       (home_ / ".claude.json").string()),
            std::string::npos)
      << hosts;
  EXPECT_EQ(doctor.exit_code, 0) << doctor.out;

  // The server gone (by hand): doctor says so, and how to put it back.
  Write(home_ / ".claude.json", "{}");
  doctor = Togmal({"doctor", "--dir", home_.string()});
  EXPECT_EQ(doctor.exit_code, 1) << doctor.out;
  EXPECT_NE(doctor.out.find("PROBLEM  claude-code (user): no MCP server togmal"), std::string::npos)
      << doctor.out;
}

TEST_F(InstallTrace, CodexsTrustStepIsWhatThePersonMustStillDo) {
  ProcessOutput out =
      Togmal({"install", "codex", "--scope", "project", "--dir", project_.string()});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find("to do: Codex runs a new or changed hook only once you trust it"),
            std::string::npos)
      << out.out;
  EXPECT_EQ(out.out.find("Restart Codex"), std::string::npos) << out.out;
  ProcessOutput doctor = Togmal({"doctor", "--dir", project_.string()});
  EXPECT_NE(doctor.out.find("to do    codex (project): hook in " +
                            (project_ / ".codex/hooks.json").string() +
                            " runs togmal hook; Codex runs it only once you trust it"),
            std::string::npos)
      << doctor.out;
  EXPECT_EQ(doctor.out.find("ok       codex (project): hook in"), std::string::npos)
      << "not only ok:\n"
      << doctor.out;
}

TEST_F(InstallTrace, GeminisFolderTrustIsWhatThePersonMustStillDoWhenItIsOn) {
  const std::vector<std::string> install = {"install", "gemini", "--scope",
                                            "project", "--dir",  project_.string()};
  ProcessOutput off = Togmal(install);
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_EQ(off.out.find("Trusted Folders"), std::string::npos) << "off by default:\n" << off.out;
  ASSERT_EQ(
      Togmal({"uninstall", "gemini", "--scope", "project", "--dir", project_.string()}).exit_code,
      0);
  Write(home_ / ".gemini/settings.json", R"({"security": {"folderTrust": {"enabled": true}}})");
  ProcessOutput on = Togmal(install);
  EXPECT_NE(
      on.out.find("to do: Gemini's Trusted Folders is on and does not trust " + project_.string()),
      std::string::npos)
      << on.out;
  ProcessOutput doctor = Togmal({"doctor", "--dir", project_.string()});
  EXPECT_NE(doctor.out.find("to do    gemini (project): hook in "), std::string::npos)
      << doctor.out;
  // Trusting the folder above it (as Gemini's dialog records it) is enough.
  Write(home_ / ".gemini/trustedFolders.json", json{{root_.string(), "TRUST_FOLDER"}}.dump());
  doctor = Togmal({"doctor", "--dir", project_.string()});
  EXPECT_NE(doctor.out.find("ok       gemini (project): hook in "), std::string::npos)
      << doctor.out;
}

TEST_F(InstallTrace, ClaudeProjectServerAwaitsThePersonsApproval) {
  ASSERT_EQ(Togmal({"install", "claude-code", "--scope", "project", "--dir", project_.string()})
                .exit_code,
            0);
  ProcessOutput doctor = Togmal({"doctor", "--dir", project_.string()});
  EXPECT_NE(doctor.out.find("to do    claude-code (project): MCP server togmal in " +
                            (project_ / ".mcp.json").string()),
            std::string::npos)
      << doctor.out;
  Write(home_ / ".claude.json",
        json{{"projects", {{project_.string(), {{"enabledMcpjsonServers", {"togmal"}}}}}}}.dump());
  doctor = Togmal({"doctor", "--dir", project_.string()});
  EXPECT_NE(doctor.out.find("ok       claude-code (project): MCP server togmal in "),
            std::string::npos)
      << doctor.out;
}

}  // namespace
}  // namespace togmal
