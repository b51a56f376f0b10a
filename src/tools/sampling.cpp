#include "togmal/tools/sampling.h"

#include "togmal/util/json_dump.h"
#include "togmal/util/json_fields.h"
#include "togmal/util/text.h"

namespace togmal::tools {
namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxInputText = 8000;

std::string Trim(std::string_view text) {
  std::size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  std::size_t end = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(begin, end - begin + 1));
}

// The text of a CreateMessageResult: `content` is one block or (2025-11-25
// and later) a list of blocks; only text blocks count.
std::optional<std::string> ResultText(const json& result) {
  if (!result.is_object()) return std::nullopt;
  auto content = result.find("content");
  if (content == result.end()) return std::nullopt;
  std::string text;
  auto take = [&text](const json& block) {
    if (util::StringField(block, "type") == "text" && block.contains("text") &&
        block["text"].is_string()) {
      text += block["text"].get<std::string>();
    }
  };
  if (content->is_array()) {
    for (const json& block : *content) take(block);
  } else {
    take(*content);
  }
  if (text.empty()) return std::nullopt;
  return text;
}

// Long strings (file contents, heredocs) are cut one by one, so that the
// short fields after them (file_path sorts after content) still reach the model.
json ShortenStrings(const json& value) {
  constexpr std::size_t kMaxString = 2000;
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    if (text.size() <= kMaxString) return value;
    return util::Shorten(text, kMaxString) + " (" + std::to_string(text.size()) + " bytes in all)";
  }
  if (value.is_object() || value.is_array()) {
    json copy = value;
    for (auto& element : copy) element = ShortenStrings(element);
    return copy;
  }
  return value;
}

}  // namespace

json SamplingRequest(const policy::ToolCall& call, const rules::Decision& decision) {
  std::string input = util::DumpJson(ShortenStrings(call.tool_input), 2);
  if (input.size() > kMaxInputText) {
    input = util::Shorten(input, kMaxInputText) + "\n(" + std::to_string(input.size()) +
            " bytes in all)";
  }
  std::string findings;
  for (const policy::Finding& finding : decision.findings) {
    findings += "- " + std::string(policy::LevelName(finding.level)) + ": " + finding.why + "\n";
  }
  std::string text = "An AI agent wants to make this tool call.\n\nTool: " + call.tool_name +
                     "\nWorking directory: " + (call.cwd.empty() ? "(unknown)" : call.cwd) +
                     (call.agent_type.empty() ? "" : "\nSub-agent: " + call.agent_type) +
                     "\nInput:\n" + input + "\n\nThe policy rule " + decision.rule_id +
                     " asks you to review it: " +
                     (decision.sampling_guidance.empty() ? "is this call safe and necessary?"
                                                         : decision.sampling_guidance) +
                     "\n\nThe static risk classifier rated it " +
                     std::string(policy::LevelName(decision.level)) + ".\n" + findings +
                     "\nAnswer with exactly one line: `ALLOW: <one-sentence reason>` or "
                     "`DENY: <one-sentence reason>`. Nothing else.";
  return {{"messages",
           json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", text}}}}})},
          {"systemPrompt",
           "You are a security reviewer for an AI coding agent's tool calls. Be conservative with "
           "destructive, irreversible or exfiltrating operations. Your first word is ALLOW or "
           "DENY."},
          {"includeContext", "none"},
          {"temperature", 0},
          {"maxTokens", 200}};
}

Result<std::pair<rules::Permission, std::string>> ParseSamplingVerdict(const json& result) {
  auto text = ResultText(result);
  if (!text) return Fail("the model's answer had no text");
  std::string answer = Trim(*text);
  std::string first_line = Trim(answer.substr(0, answer.find('\n')));
  // Strip markdown emphasis or code marks a model may put around the verdict.
  while (!first_line.empty() && (first_line.front() == '*' || first_line.front() == '`')) {
    first_line.erase(0, 1);
  }
  rules::Permission verdict;
  std::string rest;
  if (first_line.rfind("ALLOW", 0) == 0) {
    verdict = rules::Permission::kAllow;
    rest = first_line.substr(5);
  } else if (first_line.rfind("DENY", 0) == 0) {
    verdict = rules::Permission::kDeny;
    rest = first_line.substr(4);
  } else {
    return Fail("the model answered neither ALLOW nor DENY");
  }
  while (!rest.empty() && (rest.front() == '*' || rest.front() == '`')) rest.erase(0, 1);
  if (rest.empty() || (rest.front() != ':' && rest.front() != ' ' && rest.front() != '-')) {
    return Fail("the model's verdict is not followed by a reason");
  }
  std::size_t start = rest.find_first_not_of(" :-");
  std::string reason = start == std::string::npos ? std::string() : Trim(rest.substr(start));
  while (!reason.empty() && (reason.back() == '`' || reason.back() == '*')) reason.pop_back();
  if (reason.empty()) return Fail("the model gave no reason");
  return std::make_pair(verdict, reason);
}

}  // namespace togmal::tools
