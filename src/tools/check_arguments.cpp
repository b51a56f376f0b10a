#include "togmal/tools/check_arguments.h"

#include "togmal/util/json_fields.h"
#include "togmal/util/json_parse.h"

namespace togmal::tools {
using json = nlohmann::json;

Result<CheckArguments> ParseCheckArguments(const json& arguments) {
  if (!arguments.is_object()) return Fail("arguments must be an object");
  CheckArguments parsed;
  policy::ToolCall& call = parsed.call;
  call.tool_name = util::StringField(arguments, "tool_name");
  if (call.tool_name.empty()) return Fail("tool_name is required");
  check::ReadCallContext(arguments, call);
  auto tool_input = arguments.find("tool_input");
  if (tool_input != arguments.end() && !tool_input->is_null()) {
    if (tool_input->is_object()) {
      call.tool_input = *tool_input;
    } else if (tool_input->is_string()) {
      // A hook may substitute the whole object as text.
      auto text = util::ParseJson(tool_input->get_ref<const std::string&>());
      if (!text || !text->is_object()) {
        return Fail("tool_input must be an object (or JSON text of one)" +
                    (text ? std::string() : ": " + text.error()));
      }
      call.tool_input = std::move(*text);
    } else {
      return Fail("tool_input must be an object");
    }
  }
  for (std::string_view field : kFlatToolInputFields) {
    std::string key(field);
    auto value = arguments.find(key);
    if (value == arguments.end() || value->is_null()) continue;
    if (value->is_string() && value->get_ref<const std::string&>().empty()) continue;
    auto existing = call.tool_input.find(key);
    if (existing == call.tool_input.end()) {
      call.tool_input[key] = *value;
    } else if (*existing != *value) {
      parsed.ignored_flat_fields.push_back(key);
    }
  }
  return parsed;
}

}  // namespace togmal::tools
