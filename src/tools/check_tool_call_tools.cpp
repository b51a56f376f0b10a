#include "togmal/tools/check_tool_call_tools.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <string>

#include "togmal/check/judge.h"
#include "togmal/check/recording.h"
#include "togmal/rules/rules_watcher.h"
#include "togmal/store/audit_log.h"
#include "togmal/tools/check_arguments.h"
#include "togmal/tools/sampling.h"
#include "togmal/util/json_dump.h"
#include "togmal/util/settings_layers.h"
#include "togmal/util/text.h"

namespace togmal::tools {
namespace {

using json = nlohmann::json;

json InputSchema() {
  json string = {{"type", "string"}};
  json properties = {
      {"tool_name",
       {{"type", "string"},
        {"minLength", 1},
        {"description",
         "The tool the agent wants to call: Bash, Write, Read, mcp__server__tool, …"}}},
      {"tool_input",
       {{"anyOf", json::array({{{"type", "object"}}, {{"type", "string"}}})},
        {"description",
         "The tool's arguments (an object, or JSON text of one). May be left out when flat "
         "fields such as command or file_path are given instead."}}},
      {"cwd",
       {{"type", "string"}, {"description", "The agent's working directory (project root)"}}},
      {"session_id", string},
      {"agent_id", string},
      {"agent_type", string},
      {"tool_use_id", string},
      {"permission_mode",
       {{"type", "string"},
        {"description",
         "Claude Code's permission mode (default, acceptEdits, plan, auto, bypassPermissions, "
         "dontAsk): in bypassPermissions and dontAsk a pass becomes ask"}}},
      {"hook_event_name", string},
      {"response_format",
       {{"type", "string"},
        {"enum", {"markdown", "json", "hook"}},
        {"default", "markdown"},
        {"description",
         "markdown (default), json, or hook: the text is exactly Claude Code's PreToolUse "
         "hook answer (for an mcp_tool hook)"}}}};
  for (std::string_view field : kFlatToolInputFields) {
    properties[std::string(field)] = {
        {"type", "string"},
        {"description", "tool_input." + std::string(field) + ", passed flat by an mcp_tool hook"}};
  }
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", {"tool_name"}}};
}

json OutputSchema() {
  json level = {{"type", "string"}, {"enum", {"L0", "L1", "L2", "L3"}}};
  return {
      {"type", "object"},
      {"properties",
       {{"decision", {{"type", "string"}, {"enum", {"allow", "pass", "ask", "deny"}}}},
        {"level", level},
        {"source", {{"type", "string"}, {"enum", {"rule", "classifier", "sampling", "error"}}}},
        {"rule_id", {{"type", "string"}}},
        {"reasons",
         {{"type", "array"},
          {"items",
           {{"type", "object"},
            {"properties",
             {{"level", level}, {"why", {{"type", "string"}}}, {"segment", {{"type", "string"}}}}},
            {"required", {"level", "why"}}}}}},
        {"audit_id", {{"anyOf", json::array({{{"type", "integer"}}, {{"type", "null"}}})}}},
        {"allow_code",
         {{"type", "string"},
          {"description",
           "For a deny or ask: the code the user gives `togmal allow` to let this exact call "
           "through"}}},
        {"allowed_by_grant",
         {{"type", "integer"},
          {"description", "The `togmal allow` grant that let the call through"}}},
        {"broken_config",
         {{"type", "array"},
          {"items", {{"type", "string"}}},
          {"description",
           "Rule or settings files that could not be read, parsed or validated (file:line: "
           "why): while there is one, togmal asks where it would have allowed or passed"}}},
        {"ignored_flat_fields",
         {{"type", "array"},
          {"items", {{"type", "string"}}},
          {"description",
           "Flat fields given besides tool_input with another value: the call was judged by "
           "tool_input"}}}}},
      {"required", {"decision", "level", "source", "reasons", "audit_id"}}};
}

std::string Markdown(const rules::Decision& decision, const json& result) {
  std::string text = "**togmal: " + std::string(rules::PermissionName(decision.permission)) +
                     "** (" + std::string(policy::LevelName(decision.level)) + ", decided by " +
                     std::string(rules::SourceName(decision.source)) +
                     (decision.rule_id.empty() ? "" : " " + decision.rule_id) + ")\n\n" +
                     decision.reason + "\n";
  if (decision.permission == rules::Permission::kPass) {
    text += "\ntogmal takes no decision: the host's own permission rules and mode decide.\n";
  }
  if (!decision.notice.empty() && decision.notice != decision.reason) {
    text += "\nNotice: " + decision.notice + "\n";
  }
  if (!decision.findings.empty()) {
    text += "\nFindings:\n";
    for (const json& reason : result["reasons"]) {
      text += "- " + reason["level"].get<std::string>() + ": " + reason["why"].get<std::string>();
      if (reason.contains("segment")) text += " — `" + reason["segment"].get<std::string>() + "`";
      text += "\n";
    }
  }
  if (!decision.tightened_by.empty()) text += "\n(" + decision.tightened_by + ")\n";
  if (result.contains("ignored_flat_fields")) {
    text += "\nJudged by tool_input; these flat fields disagreed with it and were not used: " +
            util::DumpJson(result["ignored_flat_fields"]) + "\n";
  }
  text += result["audit_id"].is_null() ? "\nNot audited.\n"
                                       : "\nAudit entry " + result["audit_id"].dump() + ".\n";
  return text;
}

// Puts a SAMPLE decision to the client's model; every failure is an ask.
// False while the question is on its way to the client (modern era): the
// judgement is then pending, nothing is recorded, and the retry decides.
bool ResolveSample(const policy::ToolCall& call, rules::Decision& decision,
                   mcp::ToolContext& context) {
  if (!context.ClientSupports(mcp::ClientFeature::kSampling)) {
    rules::ResolveSampleAsAsk(decision, "the MCP client offers no sampling");
    return true;
  }
  auto answer =
      context.Ask("sample_verdict", "sampling/createMessage", SamplingRequest(call, decision));
  if (answer.needs_input()) return false;
  if (!answer) {
    rules::ResolveSampleAsAsk(decision, "no verdict from the client's model: " + answer.error());
    return true;
  }
  auto verdict = ParseSamplingVerdict(*answer);
  if (!verdict) {
    rules::ResolveSampleAsAsk(decision, verdict.error());
    return true;
  }
  rules::ResolveSampleByModel(decision, verdict->first, verdict->second);
  return true;
}

mcp::ToolResult Check(const CheckToolCallOptions& options, const json& arguments,
                      mcp::ToolContext& context) {
  const auto started = check::Judge::Clock::now();
  const std::string format = arguments.value("response_format", "markdown");
  check::Judge judge({.via = "mcp",
                      .recording = check::Recording::kAudited,
                      .audit = options.append_audit,
                      .resolve_sample =
                          [&context](const policy::ToolCall& call, rules::Decision& decision) {
                            return ResolveSample(call, decision, context);
                          },
                      .grants = options.grants});
  auto parsed = ParseCheckArguments(arguments);
  check::Judgement judgement;
  std::vector<std::string> ignored_flat_fields;
  std::vector<std::string> broken_config;
  if (!parsed) {
    // A hook reads only the hook answer: an invalid call is still decided
    // (on_error, recorded). Other formats get an isError result.
    if (format != "hook") return mcp::ToolResult::Failure(parsed.error());
    judgement = judge.Refuse({}, options.settings, parsed.error(), started);
  } else {
    policy::ToolCall& call = parsed->call;
    ignored_flat_fields = parsed->ignored_flat_fields;
    if (call.session_id.empty()) call.session_id = context.ClientName();
    check::Policy policy{.rules = options.rules->ForCwd(call.cwd),
                         .settings = options.settings,
                         .broken_settings = options.broken_settings};
    broken_config = check::BrokenConfiguration(policy);
    judgement = judge.Decide(call, policy, started);
    if (judgement.pending) return mcp::ToolResult::NeedsInput();
  }
  const rules::Decision& decision = judgement.decision;
  json result = rules::DecisionJson(decision);
  result["audit_id"] = judgement.audit_id ? json(*judgement.audit_id) : json(nullptr);
  if (judgement.allow_code) {
    if (judgement.allow_code->grant) {
      result["allowed_by_grant"] = judgement.allow_code->grant->id;
    } else {
      result["allow_code"] = judgement.allow_code->code;
    }
  }
  if (!broken_config.empty()) result["broken_config"] = broken_config;
  if (!ignored_flat_fields.empty()) result["ignored_flat_fields"] = ignored_flat_fields;
  std::string text;
  if (format == "hook") {
    text = util::DumpJson(check::ClaudeHookAnswer(decision));
  } else if (format == "json") {
    text = util::DumpJson(result, 2);
  } else {
    text = Markdown(decision, result);
  }
  return mcp::ToolResult::Text(std::move(text), std::move(result));
}

// Reloads after the watcher saw the user rule file change.
void ReloadRules(const CheckToolCallOptions& options) {
  auto reloaded = options.rules->Reload();
  json detail = {
      {"what", "rules"}, {"file", options.rules->user_file().string()}, {"ok", reloaded.ok()}};
  if (reloaded) {
    detail["rules"] = options.rules->Base()->rules.size();
    spdlog::info("rules reloaded from {}", options.rules->user_file().string());
  } else {
    detail["error"] = reloaded.error();
    spdlog::error(
        "rules not reloaded, the previous rules stay in force and nothing is auto-approved until "
        "it is fixed: {}",
        reloaded.error());
  }
  if (options.append_audit) {
    store::AuditEntry entry;
    entry.kind = store::AuditKind::kConfigChange;
    entry.session = "serve";
    entry.source = "hot_reload";
    entry.decision = reloaded ? "applied" : "rejected";
    entry.detail = std::move(detail);
    if (auto appended = options.append_audit(std::move(entry)); !appended) {
      spdlog::error("audit: {}", appended.error());
    }
  }
  if (reloaded && options.resource_changed) options.resource_changed("config://rules");
}

}  // namespace

Result<CheckToolCallOptions> ServeCheckToolCallOptions(
    std::shared_ptr<store::SharedDatabase> database, const store::AuditOptions& audit) {
  CheckToolCallOptions options;
  util::SettingsLayers layers = util::LoadSettingsLayers();
  options.settings = check::ReadDecisionSettings(layers, options.broken_settings);
  for (const std::string& why : options.broken_settings) {
    spdlog::warn("{} (nothing is auto-approved until it is fixed)", why);
  }
  options.rules = std::make_shared<rules::ActiveRules>();
  if (auto loaded = options.rules->Reload(); !loaded) {
    spdlog::error(
        "rules: {} (left out: the built-in rules are in force, and nothing is auto-approved, "
        "until it is fixed)",
        loaded.error());
  }
  // Group commit: each call answers only once its entry is committed.
  check::JudgeSinks sinks = check::SharedSinks(std::move(database), audit);
  options.append_audit = std::move(sinks.audit);
  options.grants = std::move(sinks.grants);
  return options;
}

void RegisterCheckToolCallTools(mcp::ToolRegistry& registry, mcp::ResourceRegistry& resources,
                                CheckToolCallOptions options) {
  auto shared = std::make_shared<const CheckToolCallOptions>(std::move(options));
  // The watcher lives as long as the tool's handler (the whole of `serve`).
  std::shared_ptr<rules::RulesWatcher> watcher;
  if (shared->hot_reload && shared->rules) {
    auto started =
        rules::RulesWatcher::Start(shared->rules->user_file(), [shared] { ReloadRules(*shared); });
    if (started) {
      watcher = std::move(*started);
    } else {
      spdlog::warn("rules hot reload is off: {}", started.error());
    }
  }
  resources.Add(mcp::Resource{
      .uri = "config://rules",
      .name = "Active policy rules",
      .description = "The built-in and user rules in force, in matching order, each with its "
                     "layer and file:line (project rules are added per call from its cwd).",
      .mime_type = "application/json",
      .read = [shared]() -> Result<std::string> {
        return rules::ActiveRules::Describe(*shared->rules->Base())
            .dump(2, ' ', false, json::error_handler_t::replace);
      }});
  registry.Add(mcp::Tool{
      .name = "togmal_check_tool_call",
      .description =
          "Judge a tool call an AI agent is about to make, as togmal's Claude Code hook does: "
          "policy rules first, then the L0-L3 risk classifier. Returns allow, pass (no "
          "decision: the host's own permission prompt decides), ask or deny with "
          "the level, what decided and why, and records the decision in the audit trail. "
          "Accepts Claude Code's tool_input object or, for an mcp_tool hook, flat fields such as "
          "command or file_path; response_format \"hook\" returns the PreToolUse hook answer.",
      .input_schema = InputSchema(),
      .output_schema = OutputSchema(),
      .annotations = {.title = "Check a tool call",
                      .read_only = false,  // it appends to the audit trail
                      .destructive = false,
                      .idempotent = false,
                      .open_world = false},
      .handler = [shared, watcher](const json& arguments, mcp::ToolContext& context) {
        return Check(*shared, arguments, context);
      }});
}

}  // namespace togmal::tools
