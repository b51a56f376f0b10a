// tools/list and tools/call: tools as each era describes them, arguments
// validated against the tool's input schema before its handler runs, results
// (structuredContent) shaped for the era, input_required when a handler
// needs the client's input first.
#include <spdlog/spdlog.h>

#include <utility>

#include "server_impl.h"
#include "togmal/mcp/schema_validation.h"
#include "tool_call_context.h"

namespace togmal::mcp {

json Server::Impl::ToolToJson(const Tool& tool, const CallContext& call) const {
  json out = {
      {"name", tool.name}, {"description", tool.description}, {"inputSchema", tool.input_schema}};
  bool has_output = !tool.output_schema.is_null();
  // structuredContent/outputSchema arrived in 2025-06-18.
  if (has_output && (call.era == Era::kModern || call.version >= "2025-06-18")) {
    json schema = tool.output_schema;
    if (call.era == Era::kLegacy && schema.value("type", json()) != "object") {
      // Legacy outputSchema must describe an object: match the wrapping of
      // structuredContent in ToolResultToJson.
      schema = {{"type", "object"}, {"properties", {{"result", schema}}}, {"required", {"result"}}};
    }
    out["outputSchema"] = std::move(schema);
  }
  json annotations = {{"readOnlyHint", tool.annotations.read_only},
                      {"destructiveHint", tool.annotations.destructive},
                      {"idempotentHint", tool.annotations.idempotent},
                      {"openWorldHint", tool.annotations.open_world}};
  if (!tool.annotations.title.empty()) annotations["title"] = tool.annotations.title;
  out["annotations"] = std::move(annotations);
  return out;
}

void Server::Impl::ToolsList(const json& params, const CallContext& call, ReplyOnce reply) {
  if (RejectCursor(params, reply)) return;
  json list = json::array();
  for (const Tool& tool : tools_.All()) list.push_back(ToolToJson(tool, call));
  json result = {{"tools", std::move(list)}};
  AddCacheHints(result, call, kStableTtlMs, "public");
  reply.Result(std::move(result));
}

json Server::Impl::ToolResultToJson(ToolResult result, const CallContext& call) const {
  // Member by member, not from an initializer list: every tool answer is
  // built here, and the list's pairs would be arrays built and taken apart.
  json out(json::value_t::object);
  auto& members = out.get_ref<json::object_t&>();
  members.emplace("content", std::move(result.content));
  members.emplace("isError", result.is_error);
  if (result.structured) {
    if (call.era == Era::kModern) {
      members.emplace("structuredContent", std::move(*result.structured));
    } else if (call.version >= "2025-06-18") {
      // Legacy structuredContent must be an object (the SDK's own wrapping).
      members.emplace("structuredContent", result.structured->is_object()
                                               ? std::move(*result.structured)
                                               : json{{"result", std::move(*result.structured)}});
    }
  }
  return out;
}

void Server::Impl::ToolsCall(const json& params, const CallContext& call, ReplyOnce reply) {
  auto invalid = [&](std::string message) {
    reply.Error(error_code::kInvalidParams, "Invalid params: " + std::move(message));
  };
  auto name_it = params.find("name");
  if (name_it == params.end() || !name_it->is_string()) {
    return invalid("tools/call needs name (a string)");
  }
  const std::string& name = name_it->get_ref<const std::string&>();
  const Tool* tool = tools_.Find(name);
  if (tool == nullptr) return invalid("unknown tool: " + name);
  // The arguments are read where they are in params, not copied: the
  // handler only reads them.
  static const json kNoArguments = json::object();
  const json* given = &kNoArguments;
  if (auto found = params.find("arguments"); found != params.end() && !found->is_null()) {
    given = &*found;
  }
  if (!given->is_object()) return invalid("arguments of " + name + " must be an object");
  // Clients may send the arguments wrapped as {"params": {...}}: unwrap them
  // unless the tool really has an argument called "params".
  if (auto inner = given->find("params");
      given->size() == 1 && inner != given->end() && inner->is_object()) {
    const json& properties = tool->input_schema.value("properties", json::object());
    if (!properties.is_object() || !properties.contains("params")) given = &*inner;
  }
  const json& arguments = *given;
  if (auto valid = ValidateAgainstSchema(tool->input_schema, arguments); !valid) {
    return invalid("arguments of " + name + ": " + valid.error());
  }

  json answers = json::object();
  if (call.era == Era::kModern) {
    auto retry = AnswersOfRetry(name, arguments, params);
    if (!retry) return invalid(retry.error());
    answers = std::move(*retry);
  }

  ToolCallContext context(*this, call, std::move(answers));
  ToolResult result;
  try {
    result = tool->handler(arguments, context);
  } catch (const std::exception& e) {
    result = ToolResult::Failure("tool " + name + " failed: " + e.what());
  } catch (...) {
    result = ToolResult::Failure("tool " + name + " failed with an unknown error");
  }
  if (context.needs_input()) {
    // The question goes out whatever the handler made of the pending answer.
    if (!result.needs_input) {
      spdlog::debug("tool {} went on past an unanswered question; its result is dropped", name);
    }
    return ReplyInputRequired(name, arguments, context, reply);
  }
  if (result.needs_input) {
    result = ToolResult::Failure("tool " + name + " said it needs input without asking anything");
  }
  reply.Result(ToolResultToJson(std::move(result), call));
}

}  // namespace togmal::mcp
