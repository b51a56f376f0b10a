// The top-level command line through the built binary. Only the subcommand a
// command line names is defined (cli/main.cpp), so these check that help still
// lists every subcommand, that a subcommand's help shows its options, and that
// the global option's value is not mistaken for the subcommand.

#include <dlfcn.h>
#include <gtest/gtest.h>

#include "build_tree.h"
#include "serve_client.h"

namespace togmal::testing {
namespace {

TEST(CommandLine, HelpListsEverySubcommand) {
  ProcessOutput output = RunProcess({TogmalBinary(), "--help"}, "");
  EXPECT_EQ(output.exit_code, 0);
  for (const char* name :
       {"analyze", "audit", "check", "doctor", "evidence", "hook", "install", "rules", "scan",
        "report", "serve", "stats", "statusline", "train", "uninstall", "version"}) {
    EXPECT_NE(output.out.find(std::string("\n  ") + name + " "), std::string::npos)
        << name << " missing from:\n"
        << output.out;
  }
}

// Tests skip their budgets where SanitizedBuild() says so (the training
// budget, serve's RSS, WarmHeap), and the test programs are compiled the same
// in every tree: the tree's answer must match both this process and the binary.
TEST(CommandLine, TheBinaryIsSanitizedExactlyWhenTheTreeSaysSo) {
  const bool runtime_here = dlsym(RTLD_DEFAULT, "__asan_init") != nullptr;
  EXPECT_EQ(runtime_here, SanitizedBuild());
  // AddressSanitizer lists its flags on stderr when asked; a plain binary ignores the variable.
  ProcessOutput version =
      RunProcess({TogmalBinary(), "--version"}, "", {{"ASAN_OPTIONS", "help=1"}});
  EXPECT_EQ(version.exit_code, 0) << version.err;
  const bool binary_sanitized =
      version.err.find("Available flags for AddressSanitizer") != std::string::npos;
  EXPECT_EQ(binary_sanitized, SanitizedBuild()) << version.err.substr(0, 300);
}

TEST(CommandLine, GlobalLogLevelBeforeTheSubcommand) {
  ProcessOutput version = RunProcess({TogmalBinary(), "--log-level", "debug", "version"}, "");
  EXPECT_EQ(version.exit_code, 0) << version.err;
  EXPECT_NE(version.out.find("togmal "), std::string::npos) << version.out;

  ProcessOutput check = RunProcess({TogmalBinary(), "--log-level=warn", "check", "ls", "-la"}, "");
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("L0"), std::string::npos) << check.out;
}

TEST(CommandLine, CheckAcceptsTheConventionalDoubleDash) {
  // A deny's code is remembered in the database: a scratch one.
  TempDir dir;
  const EnvChanges env = {{"TOGMAL_DB", dir.path() + "/togmal.db"}};
  ProcessOutput quoted = RunProcess({TogmalBinary(), "check", "--", "rm -rf ~"}, "", env);
  EXPECT_EQ(quoted.exit_code, 0) << quoted.err;
  EXPECT_EQ(quoted.out.rfind("L3 deny", 0), 0u) << quoted.out;
  // After `--` even words that look like check's own options are the command:
  // `--json` reaches ls, which has no such option, so the call is not
  // positively known safe (L2); `ls` alone would be L0.
  ProcessOutput words = RunProcess({TogmalBinary(), "check", "--json", "--", "ls", "--json"}, "");
  EXPECT_EQ(words.exit_code, 0) << words.err;
  EXPECT_NE(words.out.find("\"level\":\"L2\""), std::string::npos) << words.out;
}

TEST(CommandLine, SubcommandHelpShowsItsOwnOptions) {
  ProcessOutput hook = RunProcess({TogmalBinary(), "hook", "--help"}, "");
  EXPECT_EQ(hook.exit_code, 0) << hook.err;
  EXPECT_NE(hook.out.find("--db"), std::string::npos) << hook.out;
  EXPECT_NE(hook.out.find("PreToolUse"), std::string::npos) << hook.out;
  // Help asked before the name is the same help (CLI11 shows the innermost).
  ProcessOutput before = RunProcess({TogmalBinary(), "--help", "hook"}, "");
  EXPECT_EQ(before.exit_code, 0) << before.err;
  EXPECT_EQ(before.out, hook.out);
}

TEST(CommandLine, UnknownOrMissingSubcommandIsAUsageError) {
  ProcessOutput unknown = RunProcess({TogmalBinary(), "frobnicate"}, "");
  EXPECT_EQ(unknown.exit_code, 64);
  EXPECT_NE(unknown.err.find("unknown subcommand 'frobnicate'"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("hook"), std::string::npos) << "names the known ones: " << unknown.err;
  EXPECT_EQ(RunProcess({TogmalBinary()}, "").exit_code, 64);
  // A subcommand's option on another subcommand is refused, as before.
  EXPECT_EQ(RunProcess({TogmalBinary(), "version", "--ask-timeout-ms", "5"}, "").exit_code, 64);
  // So is a second subcommand name.
  EXPECT_EQ(RunProcess({TogmalBinary(), "version", "hook"}, "").exit_code, 64);
}

}  // namespace
}  // namespace togmal::testing
