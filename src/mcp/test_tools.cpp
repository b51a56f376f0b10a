// Test-only tools (see test_tools.h). Only test builds compile this file.
#include "togmal/mcp/test_tools.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <string>

namespace togmal::mcp {

bool TestToolsRequested() {
  const char* value = std::getenv("TOGMAL_TEST_TOOLS");
  return value != nullptr && std::string(value) == "1";
}

namespace {

ToolResult Echo(const json& arguments, ToolContext& /*context*/) {
  std::string text = arguments.at("text").get<std::string>();
  // A record for the log-forwarding tests (logging/setLevel, _meta logLevel).
  spdlog::info("togmal_test_echo: echoing {} bytes", text.size());
  return ToolResult::Text(text, json{{"text", text}});
}

json AskParams(const std::string& kind, const std::string& question) {
  if (kind == "sampling") {
    return {
        {"messages",
         json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", question}}}}})},
        {"maxTokens", 200}};
  }
  return {{"mode", "form"},
          {"message", question},
          {"requestedSchema",
           {{"type", "object"},
            {"properties", {{"answer", {{"type", "string"}, {"description", question}}}}},
            {"required", json::array({"answer"})}}}};
}

ToolResult Ask(const json& arguments, ToolContext& context) {
  std::string kind = arguments.at("kind").get<std::string>();
  std::string question = arguments.value("question", std::string("Proceed?"));
  int count = arguments.value("count", 1);
  std::string method = kind == "sampling" ? "sampling/createMessage" : "elicitation/create";
  json answers = json::array();
  for (int i = 1; i <= count; ++i) {
    std::string numbered = count == 1 ? question : question + " (" + std::to_string(i) + ")";
    AskResult answer = context.Ask("answer" + std::to_string(i), method, AskParams(kind, numbered));
    if (answer.needs_input()) return ToolResult::NeedsInput();
    if (!answer) return ToolResult::Failure("asking the client failed: " + answer.error());
    answers.push_back(std::move(*answer));
  }
  json structured = {{"answers", answers}};
  return ToolResult::Text(structured.dump(), structured);
}

}  // namespace

void RegisterTestTools(ToolRegistry& registry) {
  ToolAnnotations read_only;
  read_only.read_only = true;
  read_only.destructive = false;
  read_only.idempotent = true;
  read_only.open_world = false;

  registry.Add({
      .name = "togmal_test_echo",
      .description = "Test only: returns the text it is given.",
      .input_schema = {{"type", "object"},
                       {"properties", {{"text", {{"type", "string"}}}}},
                       {"required", json::array({"text"})},
                       {"additionalProperties", false}},
      .output_schema = {{"type", "object"},
                        {"properties", {{"text", {{"type", "string"}}}}},
                        {"required", json::array({"text"})}},
      .annotations = read_only,
      .handler = Echo,
  });
  registry.Add({
      .name = "togmal_test_ask",
      .description = "Test only: asks the client (sampling or elicitation) and returns the "
                     "answers.",
      .input_schema = {{"type", "object"},
                       {"properties",
                        {{"kind",
                          {{"type", "string"}, {"enum", json::array({"sampling", "elicitation"})}}},
                         {"question", {{"type", "string"}, {"minLength", 1}}},
                         {"count", {{"type", "integer"}, {"minimum", 1}, {"maximum", 3}}}}},
                       {"required", json::array({"kind"})},
                       {"additionalProperties", false}},
      .output_schema = {{"type", "object"},
                        {"properties", {{"answers", {{"type", "array"}}}}},
                        {"required", json::array({"answers"})}},
      .annotations = read_only,
      .handler = Ask,
  });
}

}  // namespace togmal::mcp
