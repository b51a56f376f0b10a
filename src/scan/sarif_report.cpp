// `--format sarif`: a SARIF 2.1.0 log that GitHub code scanning (and other
// SARIF viewers) accept: one run, one rule per reported level, each result
// at its file (relative to the scanned root, `%SRCROOT%`) and line.
#include <system_error>

#include "togmal/scan/baseline.h"
#include "togmal/scan/report_formats.h"
#include "togmal/version.h"

namespace togmal::scan {
namespace {

constexpr std::string_view kSchema =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
constexpr std::string_view kRootId = "%SRCROOT%";

// A path as a URI reference: everything but unreserved characters and '/' escaped.
std::string UriPath(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
        (byte >= '0' && byte <= '9') || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 15]);
    }
  }
  return out;
}

nlohmann::json ArtifactLocation(const std::string& file) {
  if (file.starts_with('/')) return {{"uri", "file://" + UriPath(file)}};
  return {{"uri", UriPath(file)}, {"uriBaseId", kRootId}};
}

// What a level means, its rule's name and SARIF level, and GitHub's
// security-severity (7.0–8.9 high, 4.0–6.9 medium, 0.1–3.9 low).
struct LevelRule {
  std::string_view meaning, name, sarif_level, severity;
};

LevelRule RuleOf(policy::Level level) {
  switch (level) {
    case policy::Level::kL3:
      return {"destructive, irreversible, or hiding what runs", "BlockedCommand", "error", "8.0"};
    case policy::Level::kL2:
      return {"needs a person's approval before it runs", "CommandNeedsApproval", "warning", "5.0"};
    case policy::Level::kL1:
      return {"reversible: changes files of the project only", "ReversibleCommand", "note", "2.0"};
    default:
      return {"safe: reads or builds", "SafeCommand", "note", "0.1"};
  }
}

nlohmann::json Rule(policy::Level level) {
  const LevelRule rule = RuleOf(level);
  const std::string meaning(rule.meaning);
  return {{"id", SarifRuleId(level)},
          {"name", rule.name},
          {"shortDescription",
           {{"text", std::string(policy::LevelName(level)) + ": a command that is " + meaning}}},
          {"fullDescription",
           {{"text",
             "togmal classifies every shell command the repository runs (scripts, CI jobs, "
             "Dockerfile RUN, Makefile recipes, package.json scripts, hooks, devcontainer "
             "commands). " +
                 std::string(policy::LevelName(level)) + " means: " + meaning + "."}}},
          {"help",
           {{"text",
             "The message says why. Check it with `togmal check '<command>'`; if the "
             "command is meant, keep it, otherwise make it narrower (a path inside the "
             "project, a pinned download checked by its hash, no pipe into a shell)."}}},
          {"defaultConfiguration", {{"level", rule.sarif_level}}},
          {"properties",
           {{"tags", nlohmann::json::array({"security"})}, {"security-severity", rule.severity}}}};
}

}  // namespace

std::string SarifRuleId(policy::Level level) {
  switch (level) {
    case policy::Level::kL3:
      return "togmal/L3-blocked";
    case policy::Level::kL2:
      return "togmal/L2-needs-approval";
    case policy::Level::kL1:
      return "togmal/L1-reversible";
    default:
      return "togmal/L0-safe";
  }
}

nlohmann::json FormatSarif(const ScanReport& report) {
  // L3 and L2 always; L1 and L0 when --min-level asked for them. A rule's
  // index is 3 minus its level.
  nlohmann::json rules = nlohmann::json::array();
  for (int level = 3; level >= 0 && (level >= 2 || level >= policy::Index(report.min_level));
       --level) {
    rules.push_back(Rule(static_cast<policy::Level>(level)));
  }
  nlohmann::json results = nlohmann::json::array();
  for (const Finding& finding : report.findings) {
    nlohmann::json region = {{"startLine", finding.line < 1 ? 1 : finding.line}};
    if (finding.column > 0) region["startColumn"] = finding.column;
    results.push_back(
        {{"ruleId", SarifRuleId(finding.level)},
         {"ruleIndex", 3 - policy::Index(finding.level)},
         {"level", RuleOf(finding.level).sarif_level},
         {"message",
          {{"text", std::string(policy::LevelName(finding.level)) + ": " + finding.reason + " — " +
                        finding.command + " (" + finding.origin + ")"}}},
         {"locations",
          nlohmann::json::array({{{"physicalLocation",
                                   {{"artifactLocation", ArtifactLocation(finding.file)},
                                    {"region", std::move(region)}}}}})},
         // The baseline's fingerprint, so that code scanning also follows a
         // finding across moved lines.
         {"partialFingerprints", {{"togmal/v1", Fingerprint(finding)}}},
         {"properties",
          {{"togmalLevel", policy::LevelName(finding.level)},
           {"origin", finding.origin},
           {"command", finding.command}}}});
  }
  nlohmann::json notifications = nlohmann::json::array();
  for (const Problem& problem : report.problems) {
    nlohmann::json location = {{"artifactLocation", ArtifactLocation(problem.file)}};
    if (problem.line > 0) location["region"] = {{"startLine", problem.line}};
    notifications.push_back(
        {{"level", "warning"},
         {"message", {{"text", problem.why}}},
         {"locations", nlohmann::json::array({{{"physicalLocation", location}}})}});
  }
  std::error_code error;
  std::string root =
      std::filesystem::absolute(report.root, error).lexically_normal().generic_string();
  if (!root.ends_with('/')) root.push_back('/');
  nlohmann::json run = {
      {"tool",
       {{"driver",
         {{"name", "togmal"},
          {"version", std::string(kVersion)},
          {"semanticVersion", std::string(kVersion)},
          {"rules", rules}}}}},
      {"originalUriBaseIds", {{kRootId, {{"uri", "file://" + UriPath(root)}}}}},
      {"invocations", nlohmann::json::array({{{"executionSuccessful", true},
                                              {"toolExecutionNotifications", notifications}}})},
      {"results", std::move(results)}};
  return {{"$schema", kSchema}, {"version", "2.1.0"}, {"runs", nlohmann::json::array({run})}};
}

}  // namespace togmal::scan
