// `--format sarif`: a SARIF 2.1.0 log that GitHub code scanning (and other
// SARIF viewers) accept: one run, one rule per reported level, each result
// at its file (relative to the scanned root, `%SRCROOT%`) and line.
#include <system_error>

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

nlohmann::json Rule(policy::Level level) {
  const bool l3 = level == policy::Level::kL3;
  const std::string meaning = l3 ? "destructive, irreversible, or hiding what runs"
                                 : "needs a person's approval before it runs";
  return {{"id", SarifRuleId(level)},
          {"name", l3 ? "BlockedCommand" : "CommandNeedsApproval"},
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
          {"defaultConfiguration", {{"level", l3 ? "error" : "warning"}}},
          {"properties",
           {{"tags", nlohmann::json::array({"security"})},
            // GitHub code scanning's severity scale (7.0–8.9 high, 4.0–6.9 medium).
            {"security-severity", l3 ? "8.0" : "5.0"}}}};
}

}  // namespace

std::string SarifRuleId(policy::Level level) {
  return level == policy::Level::kL3 ? "togmal/L3-blocked" : "togmal/L2-needs-approval";
}

nlohmann::json FormatSarif(const ScanReport& report) {
  const nlohmann::json rules =
      nlohmann::json::array({Rule(policy::Level::kL3), Rule(policy::Level::kL2)});
  nlohmann::json results = nlohmann::json::array();
  for (const Finding& finding : report.findings) {
    const bool l3 = finding.level == policy::Level::kL3;
    nlohmann::json region = {{"startLine", finding.line < 1 ? 1 : finding.line}};
    if (finding.column > 0) region["startColumn"] = finding.column;
    results.push_back(
        {{"ruleId", SarifRuleId(finding.level)},
         {"ruleIndex", l3 ? 0 : 1},
         {"level", l3 ? "error" : "warning"},
         {"message",
          {{"text", std::string(policy::LevelName(finding.level)) + ": " + finding.reason + " — " +
                        finding.command + " (" + finding.origin + ")"}}},
         {"locations",
          nlohmann::json::array({{{"physicalLocation",
                                   {{"artifactLocation", ArtifactLocation(finding.file)},
                                    {"region", std::move(region)}}}}})},
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
