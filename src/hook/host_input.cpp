// Each host's pre-tool hook input, parsed into the call togmal judges. The
// tool-name tables say which of a host's tools mean the same as one of Claude
// Code's (whose names the classifier and the rules use); a tool that is not
// listed keeps its own name and is judged as an unknown tool.
#include <array>
#include <filesystem>
#include <string>
#include <string_view>

#include "togmal/hook/hook_input.h"
#include "togmal/hook/host.h"
#include "togmal/util/json_fields.h"
#include "togmal/util/json_parse.h"
#include "togmal/util/text.h"

namespace togmal::hook {
namespace {

using json = nlohmann::json;

// One field of a host tool's input that togmal knows under another name.
struct FieldRename {
  std::string_view from;
  std::string_view to;
};

// A host tool with the same meaning as a Claude Code tool.
struct ToolAlias {
  std::string_view host_tool;
  std::string_view tool;
  std::array<FieldRename, 3> renames;
};

// Gemini CLI's built-in tools (its `dir_path` arguments are directories).
// Older versions named read_file's path `absolute_path`.
constexpr ToolAlias kGeminiTools[] = {
    {"run_shell_command", "Bash", {}},
    {"write_file", "Write", {}},
    {"replace", "Edit", {}},
    {"read_file", "Read", {{{"absolute_path", "file_path"}}}},
    {"list_directory", "LS", {{{"dir_path", "path"}}}},
    {"glob", "Glob", {{{"dir_path", "path"}}}},
    {"search_file_content", "Grep", {{{"dir_path", "path"}}}},
    {"grep_search", "Grep", {{{"dir_path", "path"}}}},
    {"web_fetch", "WebFetch", {}},
    {"google_web_search", "WebSearch", {}},
    {"write_todos", "TodoWrite", {}},
};

// GitHub Copilot CLI's tools.
constexpr ToolAlias kCopilotTools[] = {
    {"bash", "Bash", {}},
    {"create", "Write", {{{"path", "file_path"}, {"file_text", "content"}}}},
    {"edit",
     "Edit",
     {{{"path", "file_path"}, {"old_str", "old_string"}, {"new_str", "new_string"}}}},
    {"str_replace",
     "Edit",
     {{{"path", "file_path"}, {"old_str", "old_string"}, {"new_str", "new_string"}}}},
    {"view", "Read", {{{"path", "file_path"}}}},
    {"glob", "Glob", {}},
    {"grep", "Grep", {}},
    {"web_fetch", "WebFetch", {}},
};

// Codex sends Claude Code's names for most tools; its older shell tools had
// their own, with the command as an argument vector.
constexpr ToolAlias kCodexTools[] = {
    {"shell", "Bash", {}},
    {"local_shell", "Bash", {}},
    {"exec_command", "Bash", {{{"cmd", "command"}}}},
};

template <std::size_t N>
void ApplyAlias(const ToolAlias (&table)[N], policy::ToolCall& call) {
  for (const ToolAlias& alias : table) {
    if (alias.host_tool != call.tool_name) continue;
    call.tool_name = std::string(alias.tool);
    for (const FieldRename& rename : alias.renames) {
      if (rename.from.empty()) break;
      auto it = call.tool_input.find(rename.from);
      if (it == call.tool_input.end() || call.tool_input.contains(rename.to)) continue;
      json value = std::move(*it);
      call.tool_input.erase(it);
      call.tool_input[std::string(rename.to)] = std::move(value);
    }
    return;
  }
}

// A command given as an argument vector, as one shell line: each word
// single-quoted when it holds anything a shell would read specially.
std::string JoinArgv(const json& argv) {
  std::string line;
  for (const json& word : argv) {
    const std::string text = word.is_string() ? word.get<std::string>() : word.dump();
    if (!line.empty()) line.push_back(' ');
    const bool plain = !text.empty() && text.find_first_not_of(
                                            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./=:,+@%") == std::string::npos;
    if (plain) {
      line += text;
      continue;
    }
    line += util::ShellQuote(text);
  }
  return line;
}

// Codex's apply_patch carries the patch as text; a patch that touches one
// file is judged as the Write (new file) or Edit of that file. A patch over
// several files stays an apply_patch call (unknown to the classifier: asked).
void MapApplyPatch(policy::ToolCall& call) {
  std::string patch = util::StringField(call.tool_input, "command");
  if (patch.empty()) patch = util::StringField(call.tool_input, "input");
  if (patch.empty()) patch = util::StringField(call.tool_input, "patch");
  std::string file;
  std::string tool;
  int files = 0;
  std::string_view rest = patch;
  while (!rest.empty()) {
    const std::size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    for (auto [marker, as] :
         {std::pair{"*** Add File: ", "Write"}, std::pair{"*** Update File: ", "Edit"},
          std::pair{"*** Delete File: ", "Delete"}, std::pair{"*** Move to: ", "Move"}}) {
      const std::string_view prefix = marker;
      if (!line.starts_with(prefix)) continue;
      ++files;
      file = std::string(line.substr(prefix.size()));
      tool = as;
    }
  }
  if (files != 1 || (tool != "Write" && tool != "Edit")) return;
  std::filesystem::path path(file);
  if (path.is_relative() && !call.cwd.empty()) path = std::filesystem::path(call.cwd) / path;
  call.tool_name = tool;
  call.tool_input = {{"file_path", path.lexically_normal().string()}};
}

Result<json> ParseObject(std::string_view text, const char* host_input) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return Fail(std::string("the hook input was empty (expected ") + host_input + " on stdin)");
  }
  auto parsed = util::ParseJson(text);
  if (!parsed) return Fail("the hook input is " + parsed.error());
  if (!parsed->is_object()) return Fail("the hook input is not a JSON object");
  return std::move(*parsed);
}

Result<policy::ToolCall> ParseCodex(std::string_view text) {
  auto call = ParseHookInput(text);
  if (!call) return call;
  ApplyAlias(kCodexTools, *call);
  if (call->tool_name == "Bash") {
    auto command = call->tool_input.find("command");
    if (command != call->tool_input.end() && command->is_array()) *command = JoinArgv(*command);
  } else if (call->tool_name == "apply_patch") {
    MapApplyPatch(*call);
  }
  return call;
}

Result<policy::ToolCall> ParseGemini(std::string_view text) {
  auto input = ParseObject(text, "Gemini CLI's BeforeTool JSON");
  if (!input) return Fail(input.error());
  policy::ToolCall call;
  call.cwd = util::StringField(*input, "cwd");
  call.session_id = util::StringField(*input, "session_id");
  call.hook_event_name = util::StringField(*input, "hook_event_name");
  if (!call.hook_event_name.empty() && call.hook_event_name != "BeforeTool") {
    return Fail("togmal hook --host gemini answers BeforeTool events only, got " +
                call.hook_event_name);
  }
  call.tool_name = util::StringField(*input, "tool_name");
  if (call.tool_name.empty()) return Fail("the hook input has no tool_name string");
  auto tool_input = input->find("tool_input");
  if (tool_input == input->end() || !tool_input->is_object()) {
    return Fail("the hook input has no tool_input object (tool " + call.tool_name + ")");
  }
  call.tool_input = std::move(*tool_input);
  ApplyAlias(kGeminiTools, call);
  // The shell tool runs in dir_path, relative to the project directory.
  if (call.tool_name == "Bash") {
    const std::string dir = util::StringField(call.tool_input, "dir_path");
    if (!dir.empty() && !call.cwd.empty()) {
      call.cwd = (std::filesystem::path(call.cwd) / dir).lexically_normal().string();
    }
  }
  return call;
}

Result<policy::ToolCall> ParseCopilot(std::string_view text) {
  auto input = ParseObject(text, "Copilot CLI's preToolUse JSON");
  if (!input) return Fail(input.error());
  policy::ToolCall call;
  call.cwd = util::StringField(*input, "cwd");
  call.hook_event_name = "preToolUse";
  call.tool_name = util::StringField(*input, "toolName");
  if (call.tool_name.empty()) return Fail("the hook input has no toolName string");
  // toolArgs is a JSON string; the SDK's in-process hooks pass an object.
  auto args = input->find("toolArgs");
  if (args == input->end()) {
    return Fail("the hook input has no toolArgs (tool " + call.tool_name + ")");
  }
  if (args->is_string()) {
    auto parsed = util::ParseJson(args->get_ref<const std::string&>());
    if (!parsed || !parsed->is_object()) {
      return Fail("the hook input's toolArgs is not a JSON object (tool " + call.tool_name + ")");
    }
    call.tool_input = std::move(*parsed);
  } else if (args->is_object()) {
    call.tool_input = std::move(*args);
  } else {
    return Fail("the hook input's toolArgs is not a JSON object (tool " + call.tool_name + ")");
  }
  ApplyAlias(kCopilotTools, call);
  return call;
}

Result<policy::ToolCall> ParseCursor(std::string_view text) {
  auto input = ParseObject(text, "a Cursor hook's JSON");
  if (!input) return Fail(input.error());
  policy::ToolCall call;
  // Cursor's hook answers allow, ask or deny; what it does with no answer
  // is not documented, so nothing is left to it: togmal asks.
  call.host_has_gate = false;
  call.session_id = util::StringField(*input, "conversation_id");
  call.tool_use_id = util::StringField(*input, "generation_id");
  call.hook_event_name = util::StringField(*input, "hook_event_name");
  call.cwd = util::StringField(*input, "cwd");
  if (call.cwd.empty()) {
    auto roots = input->find("workspace_roots");
    if (roots != input->end() && roots->is_array() && !roots->empty() &&
        roots->front().is_string()) {
      call.cwd = roots->front().get<std::string>();
    }
  }
  const std::string& event = call.hook_event_name;
  if (event == "beforeShellExecution") {
    auto command = input->find("command");
    if (command == input->end() || !command->is_string()) {
      return Fail("the hook input has no command string (beforeShellExecution)");
    }
    call.tool_name = "Bash";
    call.tool_input = {{"command", *command}};
  } else if (event == "beforeReadFile") {
    const std::string file = util::StringField(*input, "file_path");
    if (file.empty()) return Fail("the hook input has no file_path string (beforeReadFile)");
    // The file's content comes along; it is not needed to judge the read
    // and is not stored.
    call.tool_name = "Read";
    call.tool_input = {{"file_path", file}};
  } else if (event == "beforeMCPExecution") {
    const std::string tool = util::StringField(*input, "tool_name");
    if (tool.empty()) return Fail("the hook input has no tool_name string (beforeMCPExecution)");
    // Cursor does not say which server the tool belongs to.
    call.tool_name = "mcp__cursor__" + tool;
    auto tool_input = input->find("tool_input");
    if (tool_input != input->end() && tool_input->is_string()) {
      auto parsed = util::ParseJson(tool_input->get_ref<const std::string&>());
      call.tool_input =
          parsed && parsed->is_object() ? std::move(*parsed) : json{{"raw", *tool_input}};
    } else if (tool_input != input->end() && tool_input->is_object()) {
      call.tool_input = std::move(*tool_input);
    }
  } else {
    return Fail(
        "togmal hook --host cursor answers beforeShellExecution, beforeReadFile and "
        "beforeMCPExecution, got " +
        (event.empty() ? std::string("no hook_event_name") : event));
  }
  return call;
}

}  // namespace

Result<policy::ToolCall> ParseHostInput(Host host, std::string_view text) {
  switch (host) {
    case Host::kClaude:
      return ParseHookInput(text);
    case Host::kCodex:
      return ParseCodex(text);
    case Host::kGemini:
      return ParseGemini(text);
    case Host::kCopilot:
      return ParseCopilot(text);
    case Host::kCursor:
      return ParseCursor(text);
  }
  return Fail("unknown host");
}

}  // namespace togmal::hook
