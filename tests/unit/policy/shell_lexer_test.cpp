#include "togmal/policy/shell_lexer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace togmal::policy {
namespace {

using Argv = std::vector<std::string>;

std::vector<Argv> AllArgv(const LexResult& result) {
  std::vector<Argv> out;
  for (const SimpleCommand& command : result.commands) out.push_back(command.Argv());
  return out;
}

struct QuoteCase {
  const char* input;
  Argv words;
};

class LexerQuoting : public ::testing::TestWithParam<QuoteCase> {};

TEST_P(LexerQuoting, RemovesQuotesLikeBash) {
  const LexResult result = Lex(GetParam().input);
  ASSERT_EQ(result.commands.size(), 1u) << GetParam().input;
  EXPECT_EQ(result.commands[0].Argv(), GetParam().words) << GetParam().input;
  EXPECT_TRUE(result.complete()) << GetParam().input;
}

INSTANTIATE_TEST_SUITE_P(
    Table, LexerQuoting,
    ::testing::Values(
        QuoteCase{"ls -la", {"ls", "-la"}}, QuoteCase{"g'i't push -f", {"git", "push", "-f"}},
        QuoteCase{R"("rm" "-rf" x)", {"rm", "-rf", "x"}},
        QuoteCase{R"(\rm -rf x)", {"rm", "-rf", "x"}},
        QuoteCase{R"(echo "a \"b\" \$c \\ d")", {"echo", R"(a "b" $c \ d)"}},
        QuoteCase{R"(echo 'a "b" $c')", {"echo", R"(a "b" $c)"}},
        QuoteCase{R"(echo $'a\tb\x41\'')", {"echo", "a\tbA'"}},
        QuoteCase{"echo a\\\nb", {"echo", "ab"}}, QuoteCase{"echo foo\\ bar", {"echo", "foo bar"}},
        QuoteCase{R"(echo "")", {"echo", ""}},
        QuoteCase{"echo {a,b} ~/x", {"echo", "{a,b}", "~/x"}},
        QuoteCase{"echo $HOME ${PATH:-x}", {"echo", "$HOME", "${PATH:-x}"}},
        QuoteCase{"echo $((1 + 2))", {"echo", "$((1 + 2))"}}, QuoteCase{"arr=(a b c)", {}}));

TEST(Lexer, SplitsOnEveryConnector) {
  const LexResult result = Lex("a && b || c; d | e & f\ng");
  ASSERT_EQ(result.commands.size(), 7u);
  const Connector expected[] = {Connector::kAnd,  Connector::kOr,         Connector::kSemicolon,
                                Connector::kPipe, Connector::kBackground, Connector::kNewline,
                                Connector::kEnd};
  for (std::size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(result.commands[i].connector, expected[i]) << i;
  }
  EXPECT_EQ(result.commands[4].pipe_from, 3);
  EXPECT_EQ(result.commands[3].pipe_from, -1);
}

TEST(Lexer, OperatorsInsideQuotesAreData) {
  const LexResult result = Lex(R"(echo "a && b; c | d" 'e || f' # g; h)");
  ASSERT_EQ(result.commands.size(), 1u);
  EXPECT_EQ(result.commands[0].Argv(), (Argv{"echo", "a && b; c | d", "e || f"}));
}

TEST(Lexer, SeparatesAssignmentsFromWords) {
  const LexResult result = Lex("FOO=1 BAR='x y' git push --force FOO=2");
  ASSERT_EQ(result.commands.size(), 1u);
  EXPECT_EQ(result.commands[0].assignments, (Argv{"FOO=1", "BAR=x y"}));
  EXPECT_EQ(result.commands[0].Argv(), (Argv{"git", "push", "--force", "FOO=2"}));
}

TEST(Lexer, ParsesRedirections) {
  const LexResult result = Lex("cmd 2>&1 >out.txt >> log 2>/dev/null < in &>all <<< 'here'");
  ASSERT_EQ(result.commands.size(), 1u);
  const auto& redirections = result.commands[0].redirections;
  ASSERT_EQ(redirections.size(), 7u);
  EXPECT_EQ(redirections[0].fd, 2);
  EXPECT_EQ(redirections[0].op, ">&");
  EXPECT_FALSE(redirections[0].WritesFile());
  EXPECT_EQ(redirections[1].target.text, "out.txt");
  EXPECT_TRUE(redirections[1].WritesFile());
  EXPECT_EQ(redirections[2].op, ">>");
  EXPECT_EQ(redirections[4].op, "<");
  EXPECT_TRUE(redirections[4].ReadsFile());
  EXPECT_EQ(redirections[5].op, "&>");
  EXPECT_EQ(redirections[6].op, "<<<");
  EXPECT_EQ(redirections[6].target.text, "here");
  EXPECT_EQ(result.commands[0].Argv(), (Argv{"cmd"}));
}

TEST(Lexer, FindsCommandsInSubstitutions) {
  const LexResult result = Lex("echo $(rm -rf ~) `whoami` \"$(date)\" <(ls)");
  ASSERT_EQ(result.commands.size(), 5u);
  EXPECT_EQ(result.commands[0].Argv()[0], "echo");
  EXPECT_TRUE(result.commands[0].words[1].substitutes);
  EXPECT_EQ(result.commands[1].Argv(), (Argv{"rm", "-rf", "~"}));
  EXPECT_EQ(result.commands[1].nesting, Nesting::kCommandSubstitution);
  EXPECT_EQ(result.commands[1].parent, 0);
  EXPECT_EQ(result.commands[1].depth, 1);
  EXPECT_EQ(result.commands[2].nesting, Nesting::kBackticks);
  EXPECT_EQ(result.commands[2].Argv(), (Argv{"whoami"}));
  EXPECT_EQ(result.commands[3].Argv(), (Argv{"date"}));
  EXPECT_EQ(result.commands[4].nesting, Nesting::kProcessSubstitution);
}

TEST(Lexer, NestedSubstitutions) {
  const LexResult result = Lex("echo $(echo $(echo `echo \\`id\\``))");
  ASSERT_EQ(result.commands.size(), 5u);
  EXPECT_EQ(result.commands.back().Argv(), (Argv{"id"}));
  EXPECT_EQ(result.commands.back().depth, 4);
  EXPECT_TRUE(result.complete());
}

TEST(Lexer, SubshellsGroupsAndKeywords) {
  const LexResult result = Lex(
      "(cd x && make) | tee log; { a; b; } > out; if c; then d; else e; fi; while f; do g; done");
  EXPECT_EQ(AllArgv(result), (std::vector<Argv>{{"cd", "x"},
                                                {"make"},
                                                {"tee", "log"},
                                                {},
                                                {"a"},
                                                {"b"},
                                                {"c"},
                                                {"d"},
                                                {"e"},
                                                {"f"},
                                                {"g"}}));
  EXPECT_EQ(result.commands[0].nesting, Nesting::kSubshell);
  EXPECT_EQ(result.commands[2].pipe_from, 1);  // the subshell's last command
  EXPECT_EQ(result.commands[4].nesting, Nesting::kGroup);
  EXPECT_EQ(result.commands[3].redirections.size(), 1u);  // `{ …; } > out`
}

TEST(Lexer, ReadsHeredocBodiesAsData) {
  const LexResult result =
      Lex("cat <<'EOF' > f.txt\nrm -rf /\n$(id)\nEOF\nls\ncat <<-END\n\tx\n\tEND\n");
  ASSERT_EQ(AllArgv(result), (std::vector<Argv>{{"cat"}, {"ls"}, {"cat"}}));
  const Redirection& heredoc = result.commands[0].redirections[0];
  EXPECT_EQ(heredoc.op, "<<");
  EXPECT_TRUE(heredoc.heredoc_quoted);
  EXPECT_EQ(heredoc.heredoc_body, "rm -rf /\n$(id)\n");
  EXPECT_EQ(result.commands[2].redirections[0].heredoc_body, "x\n");
  EXPECT_TRUE(result.complete());
}

TEST(Lexer, UnquotedHeredocRunsItsSubstitutions) {
  const LexResult result = Lex("cat <<EOF\nhello $(rm -rf ~)\nEOF\n");
  ASSERT_EQ(result.commands.size(), 2u);
  EXPECT_EQ(result.commands[1].Argv(), (Argv{"rm", "-rf", "~"}));
  EXPECT_EQ(result.commands[1].parent, 0);
}

TEST(Lexer, ClaudeCommitIdiom) {
  const LexResult result = Lex(
      "git commit -m \"$(cat <<'EOF'\nFix rm -rf bug; curl x | sh\n\nCo-Authored-By: C\nEOF\n)\"");
  ASSERT_EQ(result.commands.size(), 2u) << result.problems.size();
  EXPECT_TRUE(result.complete());
  EXPECT_EQ(result.commands[0].Argv()[0], "git");
  EXPECT_EQ(result.commands[1].Argv(), (Argv{"cat"}));
  EXPECT_EQ(result.commands[1].redirections[0].heredoc_body,
            "Fix rm -rf bug; curl x | sh\n\nCo-Authored-By: C\n");
}

TEST(Lexer, FunctionDefinitions) {
  const LexResult result = Lex(":(){ :|:& };:");
  ASSERT_EQ(result.commands.size(), 4u);
  EXPECT_EQ(result.commands[0].function_name, ":");
  EXPECT_EQ(result.commands[1].nesting, Nesting::kFunctionBody);
  EXPECT_EQ(result.commands[1].parent, 0);
  EXPECT_EQ(result.commands[3].Argv(), (Argv{":"}));
  EXPECT_EQ(Lex("function f { rm x; }").commands[0].function_name, "f");
}

TEST(Lexer, CommentsAreNotCommands) {
  EXPECT_TRUE(Lex("# rm -rf /").commands.empty());
  EXPECT_EQ(AllArgv(Lex("ls # ; rm -rf /\npwd")), (std::vector<Argv>{{"ls"}, {"pwd"}}));
  EXPECT_EQ(AllArgv(Lex("echo a#b")), (std::vector<Argv>{{"echo", "a#b"}}));
}

struct BrokenCase {
  const char* input;
};

class LexerBrokenInput : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(LexerBrokenInput, ReportsAProblemAndKeepsWhatItFound) {
  const LexResult result = Lex(GetParam().input);
  EXPECT_FALSE(result.complete()) << GetParam().input;
  EXPECT_FALSE(result.problems.empty()) << GetParam().input;
}

INSTANTIATE_TEST_SUITE_P(Table, LexerBrokenInput,
                         ::testing::Values(BrokenCase{"echo \"abc"}, BrokenCase{"echo 'abc"},
                                           BrokenCase{"echo $(ls"}, BrokenCase{"echo `ls"},
                                           BrokenCase{"cat <<EOF\nno end"}, BrokenCase{"(ls"},
                                           BrokenCase{"{ ls; "}, BrokenCase{"ls )"},
                                           BrokenCase{"echo $'abc"}, BrokenCase{"ls >"}));

TEST(Lexer, BoundsNestingDepth) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "$(";
  const LexResult result = Lex(deep);
  EXPECT_TRUE(result.too_deep);
  EXPECT_FALSE(result.complete());
  std::string backticks = "echo ";
  for (int i = 0; i < 200; ++i) backticks += "\\`";
  EXPECT_NO_FATAL_FAILURE(Lex(backticks));
  std::string parens;
  for (int i = 0; i < 50000; ++i) parens += "( ";
  EXPECT_TRUE(Lex(parens).too_deep);
}

TEST(Lexer, OneMegabyteIsLinear) {
  std::string big;
  while (big.size() < (1u << 20)) big += "echo \"abc $(ls -la) def\" 'x' | grep -v y && ";
  const auto start = std::chrono::steady_clock::now();
  const LexResult result = Lex(big);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GT(result.commands.size(), 50000u);
  EXPECT_LT(std::chrono::duration_cast<std::chrono::seconds>(elapsed).count(),
            30);  // quadratic: hours
  std::string unterminated = "echo \"" + std::string(1 << 20, 'a');
  EXPECT_FALSE(Lex(unterminated).complete());
}

}  // namespace
}  // namespace togmal::policy
