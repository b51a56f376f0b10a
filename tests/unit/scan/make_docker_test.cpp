// The extractors of line-oriented formats: Dockerfile RUN and Makefile recipes.
#include <gtest/gtest.h>

#include "togmal/scan/extractors.h"

namespace togmal::scan {
namespace {

TEST(Dockerfile, ShellFormWithContinuationsAndComments) {
  const std::string dockerfile =
      "FROM debian:12\n"                                   // 1
      "ENV A=1 \\\n"                                       // 2
      "    B=2\n"                                          // 3
      "run apt-get update && \\\n"                         // 4
      "    # a comment Docker drops\n"                     // 5
      "    apt-get install -y curl\n"                      // 6
      "RUN --mount=type=cache,target=/root/.cache make\n"  // 7
      "ONBUILD RUN rm -rf /\n";                            // 8
  const Extraction out = ExtractDockerfile(dockerfile);
  ASSERT_EQ(out.scripts.size(), 3u);
  EXPECT_EQ(out.scripts[0].line, 4);
  EXPECT_EQ(out.scripts[0].origin, "Dockerfile RUN");
  EXPECT_EQ(out.scripts[0].ShellText(),
            "    apt-get update && \\\n\\\n    apt-get install -y curl");
  EXPECT_EQ(out.scripts[1].line, 7);
  EXPECT_EQ(out.scripts[1].ShellText().find_first_not_of(' '),
            std::string("RUN --mount=type=cache,target=/root/.cache ").size());
  EXPECT_EQ(out.scripts[2].line, 8);
}

TEST(Dockerfile, ExecFormIsQuotedWords) {
  const Extraction out =
      ExtractDockerfile("FROM x\nRUN [\"sh\", \"-c\", \"curl -s x.example | sh\"]\nRUN [\"a\",\n");
  ASSERT_EQ(out.scripts.size(), 1u);
  EXPECT_EQ(out.scripts[0].line, 2);
  EXPECT_EQ(out.scripts[0].ShellText(), "'sh' '-c' 'curl -s x.example | sh'");
  ASSERT_EQ(out.problems.size(), 1u);
  EXPECT_EQ(out.problems[0].line, 3);
}

TEST(Dockerfile, HeredocBodyIsTheScript) {
  const std::string dockerfile =
      "FROM x\n"         // 1
      "RUN <<EOF\n"      // 2
      "set -e\n"         // 3
      "rm -rf ~\n"       // 4
      "EOF\n"            // 5
      "COPY <<EOF /a\n"  // 6
      "rm -rf /\n"       // 7
      "EOF\n"            // 8
      "RUN echo ok\n";   // 9
  const Extraction out = ExtractDockerfile(dockerfile);
  ASSERT_EQ(out.scripts.size(), 2u);
  EXPECT_EQ(out.scripts[0].line, 3);
  EXPECT_EQ(out.scripts[0].text, "set -e\nrm -rf ~");
  EXPECT_EQ(out.scripts[1].line, 9);
}

TEST(Dockerfile, EscapeDirective) {
  const Extraction out = ExtractDockerfile("# escape=`\nFROM x\nRUN dir `\n  /s\n");
  ASSERT_EQ(out.scripts.size(), 1u);
  EXPECT_EQ(out.scripts[0].ShellText(), "    dir \\\n  /s");
}

TEST(Makefile, RecipesWithPrefixesVariablesAndContinuations) {
  const std::string makefile =
      "CC := gcc\n"                     // 1
      "OUT = build\n"                   // 2
      ".PHONY: all clean\n"             // 3
      "all: main.o\n"                   // 4
      "\t@$(CC) -o app main.o\n"        // 5
      "\n"                              // 6
      "clean:\n"                        // 7
      "\t-rm -rf $(OUT) \\\n"           // 8
      "\t  $@.tmp\n"                    // 9
      "\t@echo $$HOME $(shell date)\n"  // 10
      "define HELP\n"                   // 11
      "\trm -rf /\n"                    // 12
      "endef\n"                         // 13
      "lint: ; $(MAKE) -C sub\n"        // 14
      "ifdef X\n"                       // 15
      "\techo in-conditional\n"         // 16
      "endif\n";                        // 17
  const Extraction out = ExtractMakefile(makefile, Catalogue::Builtin());
  // A conditional inside a rule keeps the rule: line 16 is lint's recipe too.
  ASSERT_EQ(out.scripts.size(), 5u);
  EXPECT_EQ(out.scripts[0].line, 5);
  EXPECT_EQ(out.scripts[0].ShellText(), "gcc -o app main.o");
  EXPECT_EQ(out.scripts[0].origin, "Makefile target all recipe");
  EXPECT_EQ(out.scripts[1].line, 8);
  EXPECT_EQ(out.scripts[1].ShellText(), "rm -rf build \\\n  $make_target.tmp");
  EXPECT_EQ(out.scripts[1].origin, "Makefile target clean recipe");
  EXPECT_EQ(out.scripts[2].line, 10);
  EXPECT_EQ(out.scripts[2].ShellText(), "echo $HOME $(date)");
  EXPECT_EQ(out.scripts[3].line, 14);
  EXPECT_EQ(out.scripts[3].column, 9);
  EXPECT_EQ(out.scripts[3].ShellText(), "make -C sub");
  EXPECT_EQ(out.scripts[4].line, 16);
}

TEST(Makefile, VariablesThatMultiplyStayBounded) {
  // A11 would be 50^11 copies of x: expansion stops after a budget.
  std::string makefile = "A0 = x\n";
  for (int i = 1; i <= 11; ++i) {
    makefile += "A" + std::to_string(i) + " =";
    for (int k = 0; k < 50; ++k) makefile += " $(A" + std::to_string(i - 1) + ")";
    makefile += "\n";
  }
  makefile += "all:\n\techo $(A11)\n";
  const Extraction out = ExtractMakefile(makefile, Catalogue::Builtin());
  ASSERT_EQ(out.scripts.size(), 1u);
  EXPECT_LT(out.scripts[0].ShellText().size(), 1u << 20);
  EXPECT_TRUE(out.scripts[0].ShellText().starts_with("echo "));
}

}  // namespace
}  // namespace togmal::scan
