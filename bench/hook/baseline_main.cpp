// The floor `togmal hook` is measured against (docs/performance.md): a minimal C++
// program that does what any hook must do and nothing else — read Claude
// Code's JSON from stdin, parse it, print one decision line. Built with the
// same compiler and flags as togmal, so the ratio measures togmal's own work.
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

int main() {
  std::string input((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  nlohmann::json call = nlohmann::json::parse(input, nullptr, false);
  nlohmann::json answer = {
      {"hookSpecificOutput",
       {{"hookEventName", "PreToolUse"},
        {"permissionDecision", "allow"},
        {"permissionDecisionReason",
         "baseline: " + (call.is_object() ? call.value("tool_name", std::string("?")) : "?")}}}};
  std::cout << answer.dump() << '\n';
  return 0;
}
