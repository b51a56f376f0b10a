#include "togmal/hook/pre_tool_use.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "togmal/hook/checker.h"
#include "togmal/hook/tool_call.h"
#include "togmal/rules/decision.h"
#include "togmal/rules/rule_loader.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"
#include "togmal/store/settings.h"
#include "togmal/util/settings_layers.h"

namespace togmal::hook {
namespace {

using json = nlohmann::json;

// The last resort when even building the answer failed: still valid JSON,
// still not an allow.
constexpr std::string_view kLastResortAnswer =
    R"x({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask",)x"
    R"x("permissionDecisionReason":"togmal error: could not build an answer (asking to be safe)"}})x"
    "\n";

// What to store for input that could not be parsed: enough to see what came.
json MalformedInput(std::string_view input) {
  constexpr std::size_t kKeep = 2000;
  std::string head(input.substr(0, kKeep));
  // Never store a cut UTF-8 sequence; dump() would refuse it.
  return {{"malformed_input", json(head).dump(-1, ' ', false, json::error_handler_t::replace)},
          {"bytes", input.size()}};
}

rules::Decision Decide(std::string_view input, const HookOptions& options,
                       const Result<std::vector<util::SettingsLayer>>& layers,
                       rules::DecisionSettings& settings, ToolCallRequest& call, bool& input_ok) {
  if (!layers) return rules::ErrorDecision(settings, layers.error());
  auto loaded_settings = rules::DecisionSettingsFrom(*layers);
  if (!loaded_settings) return rules::ErrorDecision(settings, loaded_settings.error());
  settings = *loaded_settings;
  if (input.size() > kMaxHookInputBytes) {
    return rules::ErrorDecision(
        settings, "the hook input is larger than " + std::to_string(kMaxHookInputBytes) + " bytes");
  }
  auto parsed = ParseHookInput(input);
  if (!parsed) return rules::ErrorDecision(settings, parsed.error());
  call = std::move(*parsed);
  input_ok = true;
  auto rule_set = rules::LoadRules({.cwd = call.cwd, .user_file = options.user_rules});
  if (!rule_set) return rules::ErrorDecision(settings, rule_set.error());
  for (const std::string& warning : rule_set->warnings) spdlog::warn("{}", warning);
  auto decision = CheckToolCall(call, *rule_set, settings);
  if (!decision) return rules::ErrorDecision(settings, decision.error());
  if (decision->source == rules::Source::kRule && decision->action == rules::Action::kSample) {
    rules::ResolveSampleAsAsk(*decision, "");
  }
  return std::move(*decision);
}

std::string Answer(const rules::Decision& decision) {
  return rules::HookOutput(decision).dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string RunPreToolUse(std::string_view input, const HookOptions& options) {
  auto started = std::chrono::steady_clock::now();
  rules::DecisionSettings settings;
  rules::Decision decision;
  ToolCallRequest call;
  bool input_ok = false;
  // settings.yaml is parsed once for both the decision and the audit options.
  Result<std::vector<util::SettingsLayer>> layers = Fail("settings not read");
  try {
    layers = util::LoadSettingsLayers();
    decision = Decide(input, options, layers, settings, call, input_ok);
  } catch (const std::exception& e) {
    decision = rules::ErrorDecision(settings, std::string("internal error: ") + e.what());
  } catch (...) {
    decision = rules::ErrorDecision(settings, "internal error");
  }
  try {
    if (!input_ok) call.tool_input = MalformedInput(input);
    auto latency = std::chrono::duration_cast<std::chrono::microseconds>(
                       std::chrono::steady_clock::now() - started)
                       .count();
    // The safe reading of audit settings the hook cannot read: redaction
    // (the default) and an fsync per entry. The call is still answered.
    store::AuditOptions audit_options;
    bool sync_every_commit = true;
    if (layers) {
      if (auto store_settings = store::StoreSettingsFrom(*layers)) {
        audit_options.store_raw_input = store_settings->audit_store_raw_input;
        sync_every_commit = store_settings->audit_sync_full;
      } else {
        spdlog::warn("{} (redacting inputs and syncing every entry)", store_settings.error());
      }
    }
    std::filesystem::path path =
        options.database.empty() ? store::DefaultDatabasePath() : options.database;
    auto database = store::Database::Open(
        path, {.sync_every_commit = sync_every_commit, .short_lived_writer = true});
    if (!database) {
      TightenForAuditFailure(decision, database.error());
    } else {
      store::AuditLog log(*database, audit_options);
      RecordDecision(&log, call, decision, "hook", latency);
    }
  } catch (const std::exception& e) {
    TightenForAuditFailure(decision, e.what());
  } catch (...) {
    TightenForAuditFailure(decision, "unknown error");
  }
  try {
    return Answer(decision);
  } catch (...) {
    return std::string(kLastResortAnswer);
  }
}

}  // namespace togmal::hook
