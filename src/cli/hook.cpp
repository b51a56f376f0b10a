// `togmal hook`: Claude Code's PreToolUse command hook. Reads one JSON object
// on stdin, prints one decision line, exits 0 (any other exit would let the
// call through unjudged, see hook/pre_tool_use.h).
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <string>
#include <string_view>

#include "command.h"
#include "database_option.h"
#include "togmal/hook/pre_tool_use.h"

namespace togmal::cli {
namespace {

// Reads at most `limit` + 1 bytes, so an oversized input is detected without
// reading all of it. Plain read(2): stdio would allocate a buffer of its own.
std::string ReadStdin(std::size_t limit) {
  std::string input;
  char buffer[1 << 16];
  while (input.size() <= limit) {
    const ssize_t got = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // end of input, or an error: judge what arrived
    input.append(buffer, static_cast<std::size_t>(got));
  }
  return input;
}

// The whole answer with write(2); stdout is a pipe Claude Code reads.
void WriteStdout(std::string_view text) {
  while (!text.empty()) {
    const ssize_t wrote = ::write(STDOUT_FILENO, text.data(), text.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return;  // nobody is reading; nothing better to do
    text.remove_prefix(static_cast<std::size_t>(wrote));
  }
}

}  // namespace

Action DefineHook(CLI::App& command) {
  auto options = std::make_shared<hook::HookOptions>();
  DatabaseOption db = AddDatabaseOption(command);
  command.footer(
      "Register in Claude Code's settings.json:\n"
      R"(  {"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"togmal hook"}]}]}})");
  return [options, db] {
    options->database = db.Resolve();
    std::string answer = hook::RunPreToolUse(ReadStdin(hook::kMaxHookInputBytes), *options);
    WriteStdout(answer);
    return kExitOk;
  };
}

}  // namespace togmal::cli
