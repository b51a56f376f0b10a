// libFuzzer target: the shell lexer and the classifier over it must never
// crash, hang or break their own invariants, whatever the command line.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "togmal/policy/classifier.h"
#include "togmal/policy/shell_lexer.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace togmal::policy;
  const std::string_view command(reinterpret_cast<const char*>(data), size);
  const LexResult lex = Lex(command);
  for (std::size_t i = 0; i < lex.commands.size(); ++i) {
    const SimpleCommand& simple = lex.commands[i];
    // Links only point backwards to commands that exist.
    Check(simple.parent < static_cast<int>(i));
    Check(simple.pipe_from < static_cast<int>(i));
    Check(simple.depth >= 0 && simple.depth <= kMaxNestingDepth + 1);
    Check(!simple.words.empty() || !simple.assignments.empty() || !simple.redirections.empty() ||
          !simple.function_name.empty());
  }
  const Classifier& classifier = Classifier::Default();
  const Classification result = classifier.ClassifyCommand(command, "/home/user/project");
  Check(!result.findings.empty());
  Check(result.Deciding().level == result.level);
  // Input the lexer could not fully parse is never auto-approved.
  if (!lex.complete()) Check(result.level >= Level::kL2);
  (void)classifier.ExecutedSegments(command);
  return 0;
}
