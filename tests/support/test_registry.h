#pragma once
// Tools and resources the server unit tests run against.

#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "togmal/mcp/tool.h"

namespace togmal::mcp::testing {

/// Set by the `wait_for_cancel` tool once it saw ToolContext::Cancelled().
inline std::atomic<int> g_cancel_observed{0};
/// Counts `wait_for_cancel` calls that started running.
inline std::atomic<int> g_wait_started{0};

inline json ObjectSchema(json properties = json::object(), json required = json::array()) {
  return {{"type", "object"},
          {"properties", std::move(properties)},
          {"required", std::move(required)},
          {"additionalProperties", false}};
}

inline ToolRegistry MakeTestTools() {
  ToolRegistry tools;
  tools.Add({.name = "echo",
             .description = "Echoes text.",
             .input_schema = ObjectSchema({{"text", {{"type", "string"}, {"minLength", 1}}}},
                                          json::array({"text"})),
             .output_schema = ObjectSchema({{"text", {{"type", "string"}}}}),
             .annotations = {.title = "Echo",
                             .read_only = true,
                             .destructive = false,
                             .idempotent = true,
                             .open_world = false},
             .handler = [](const json& arguments, ToolContext&) {
               spdlog::info("echo tool says hello");
               std::string text = arguments["text"];
               return ToolResult::Text(text, json{{"text", text}});
             }});
  tools.Add(
      {.name = "scalar",
       .description = "Structured content that is not an object.",
       .input_schema = {{"type", "object"}, {"additionalProperties", false}},
       .output_schema = {{"type", "integer"}},
       .annotations = {},
       .handler = [](const json&, ToolContext&) { return ToolResult::Text("42", json(42)); }});
  tools.Add({.name = "fails",
             .description = "A tool-level failure.",
             .input_schema = {{"type", "object"}},
             .output_schema = nullptr,
             .annotations = {},
             .handler = [](const json&, ToolContext&) { return ToolResult::Failure("no luck"); }});
  tools.Add({.name = "throws",
             .description = "Throws.",
             .input_schema = {{"type", "object"}},
             .output_schema = nullptr,
             .annotations = {},
             .handler = [](const json&, ToolContext&) -> ToolResult {
               throw std::runtime_error("boom");
             }});
  tools.Add(
      {.name = "has_params",
       .description = "Has a real argument called params.",
       .input_schema = ObjectSchema({{"params", {{"type", "object"}}}}, json::array({"params"})),
       .output_schema = nullptr,
       .annotations = {},
       .handler = [](const json& arguments, ToolContext&) {
         return ToolResult::Text(arguments.dump());
       }});
  tools.Add({.name = "wait_for_cancel",
             .description = "Runs until cancelled (at most 5 s).",
             .input_schema = {{"type", "object"}},
             .output_schema = nullptr,
             .annotations = {},
             .handler = [](const json&, ToolContext& context) {
               ++g_wait_started;
               auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
               while (!context.Cancelled() && std::chrono::steady_clock::now() < deadline) {
                 std::this_thread::sleep_for(std::chrono::milliseconds(2));
               }
               if (context.Cancelled()) ++g_cancel_observed;
               return ToolResult::Text("stopped");
             }});
  tools.Add({.name = "ask",
             .description = "Asks the client `count` times.",
             .input_schema =
                 ObjectSchema({{"method", {{"type", "string"}}}, {"count", {{"type", "integer"}}}},
                              json::array({"method"})),
             .output_schema = nullptr,
             .annotations = {},
             .handler = [](const json& arguments, ToolContext& context) {
               json answers = json::array();
               int count = arguments.value("count", 1);
               for (int i = 1; i <= count; ++i) {
                 auto answer = context.Ask("q" + std::to_string(i), arguments["method"],
                                           {{"message", "question " + std::to_string(i)}});
                 if (!answer) return ToolResult::Failure("ask failed: " + answer.error());
                 answers.push_back(*answer);
               }
               return ToolResult::Text(
                   answers.dump(), json{{"answers", answers}, {"client", context.ClientName()}});
             }});
  return tools;
}

inline ResourceRegistry MakeTestResources() {
  ResourceRegistry resources;
  resources.Add({.uri = "test://a",
                 .name = "a",
                 .description = "Resource A",
                 .mime_type = "text/plain",
                 .read = [] { return Result<std::string>("A"); }});
  resources.Add(
      {.uri = "test://broken", .name = "broken", .description = "", .mime_type = "", .read = [] {
         return Result<std::string>(Fail("disk on fire"));
       }});
  return resources;
}

}  // namespace togmal::mcp::testing
