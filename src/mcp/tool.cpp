#include "togmal/mcp/tool.h"

#include <stdexcept>
#include <utility>

namespace togmal::mcp {

ToolResult ToolResult::Text(std::string text, std::optional<json> structured) {
  ToolResult result;
  // Member by member, not from nested initializer lists (an array per
  // member, then the object, then the list): every tool answer is built here.
  json item(json::value_t::object);
  auto& members = item.get_ref<json::object_t&>();
  members.emplace("type", "text");
  members.emplace("text", std::move(text));
  result.content.get_ref<json::array_t&>().push_back(std::move(item));
  result.structured = std::move(structured);
  return result;
}

ToolResult ToolResult::Failure(std::string message) {
  ToolResult result = Text(std::move(message));
  result.is_error = true;
  return result;
}

ToolResult ToolResult::NeedsInput() {
  ToolResult result;
  result.needs_input = true;
  return result;
}

AskResult::AskResult(State state, json answer, std::string error)
    : state_(state), answer_(std::move(answer)), error_(std::move(error)) {}

AskResult::AskResult(json answer) : AskResult(State::kAnswered, std::move(answer), {}) {}

AskResult::AskResult(Error error) : AskResult(State::kFailed, nullptr, std::move(error.message)) {}

AskResult::AskResult(Result<json> result)
    : AskResult(result ? AskResult(std::move(*result)) : AskResult(Fail(result.error()))) {}

AskResult AskResult::NeedsInput() {
  return AskResult(State::kNeedsInput, nullptr, "the question goes to the client first");
}

void ToolRegistry::Add(Tool tool) {
  if (Find(tool.name) != nullptr) {
    throw std::logic_error("tool registered twice: " + tool.name);
  }
  if (!tool.handler) throw std::logic_error("tool without a handler: " + tool.name);
  tools_.push_back(std::move(tool));
}

const Tool* ToolRegistry::Find(std::string_view name) const {
  for (const Tool& tool : tools_) {
    if (tool.name == name) return &tool;
  }
  return nullptr;
}

void ResourceRegistry::Add(Resource resource) {
  if (Find(resource.uri) != nullptr) {
    throw std::logic_error("resource registered twice: " + resource.uri);
  }
  if (!resource.read) throw std::logic_error("resource without a reader: " + resource.uri);
  resources_.push_back(std::move(resource));
}

const Resource* ResourceRegistry::Find(std::string_view uri) const {
  for (const Resource& resource : resources_) {
    if (resource.uri == uri) return &resource;
  }
  return nullptr;
}

}  // namespace togmal::mcp
