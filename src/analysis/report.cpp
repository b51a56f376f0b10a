#include "togmal/analysis/report.h"

#include <cmath>
#include <cstdio>
#include <set>

#include "togmal/util/text.h"

namespace togmal::analysis {
namespace {

using json = nlohmann::json;

// Three decimals are all a reader needs and keep outputs stable to compare.
double Round3(double value) { return std::round(value * 1000.0) / 1000.0; }

json SpansToJson(const std::vector<SignalHit>& hits) {
  json out = json::array();
  for (const auto& hit : hits) {
    out.push_back({{"name", hit.name}, {"text", hit.text}, {"start", hit.start}, {"end", hit.end}});
  }
  return out;
}

std::string Fixed(double value, int decimals) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string Upper(std::string text) {
  for (char& ch : text) {
    if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
  }
  return text;
}

/// Quotes a matched span for markdown: one line, no backticks to break out of.
std::string Quote(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '\n' || ch == '\r' || ch == '\t') {
      out += ' ';
    } else if (ch == '`') {
      out += '\'';
    } else {
      out += ch;
    }
  }
  return "`" + util::Shorten(out, 80) + "`";
}

}  // namespace

json ToJson(const Analysis& analysis, std::string_view type, json similar_evidence) {
  json detections = json::object();
  for (const auto& d : analysis.detections) {
    json checks = json::object();
    for (const auto& [name, holds] : d.checks) checks[name] = holds;
    json entry = {{"detected", d.detected},
                  {"confidence", Round3(d.confidence)},
                  {"signals", SpansToJson(d.signals)},
                  {"checks", std::move(checks)}};
    if (!d.mitigations.empty()) entry["mitigations"] = SpansToJson(d.mitigations);
    if (d.context_matched) entry["context_matched"] = true;
    detections[d.category] = std::move(entry);
  }
  json interventions = json::array();
  for (const auto& i : analysis.interventions) {
    interventions.push_back({{"type", i.type},
                             {"reason", i.reason},
                             {"suggestion", i.suggestion},
                             {"categories", i.categories}});
  }
  if (!similar_evidence.is_array()) similar_evidence = json::array();
  return {{"type", std::string(type)},
          {"risk_level", std::string(RiskLevelName(analysis.risk_level))},
          {"risk_score", Round3(analysis.risk_score)},
          {"detections", std::move(detections)},
          {"interventions", std::move(interventions)},
          {"similar_evidence", std::move(similar_evidence)}};
}

std::string RenderMarkdown(const json& result) {
  std::string out;
  const std::string type = result.value("type", "analysis");
  out += type == "response_analysis" ? "# ToGMAL response analysis\n\n"
                                     : "# ToGMAL prompt analysis\n\n";
  out += "**Risk level: " + Upper(result.value("risk_level", "low")) + "** (score " +
         Fixed(result.value("risk_score", 0.0), 2) + ")\n\n";

  std::vector<std::string> clear;
  std::string detected;
  for (const auto& [name, d] : result.at("detections").items()) {
    if (!d.value("detected", false)) {
      clear.push_back(name);
      continue;
    }
    detected += "### " + name + " (confidence " + Fixed(d.value("confidence", 0.0), 2) + ")\n";
    std::string words;
    std::set<std::string> seen;
    for (const auto& s : d.at("signals")) {
      const std::string text = s.value("text", "");
      if (!seen.insert(s.value("name", "") + '\0' + text).second) continue;
      words += (words.empty() ? "" : ", ") + Quote(text) + " (" + s.value("name", "") + ")";
    }
    if (!words.empty()) detected += "- Triggered by: " + words + "\n";
    std::string checks;
    for (const auto& [check, holds] : d.at("checks").items()) {
      checks += (checks.empty() ? "" : ", ") + check + ": " + (holds.get<bool>() ? "yes" : "no");
    }
    if (!checks.empty()) detected += "- Context checks: " + checks + "\n";
    if (d.value("context_matched", false)) detected += "- The context points the same way.\n";
    detected += "\n";
  }
  if (detected.empty()) {
    out += "No known failure modes detected.\n\n";
  } else {
    out += "## Detected\n\n" + detected;
  }
  if (!clear.empty() && !detected.empty()) {
    out += "Not detected: ";
    for (std::size_t i = 0; i < clear.size(); ++i) out += (i ? ", " : "") + clear[i];
    out += "\n\n";
  }
  const json& interventions = result.at("interventions");
  if (!interventions.empty()) {
    out += "## Recommended interventions\n\n";
    for (const auto& i : interventions) {
      std::string categories;
      for (const auto& c : i.at("categories")) {
        categories += (categories.empty() ? "" : ", ") + c.get<std::string>();
      }
      out += "- **" + i.value("type", "") + "** (for " + categories +
             "): " + i.value("reason", "") + " " + i.value("suggestion", "") + "\n";
    }
    out += "\n";
  }
  const json evidence = result.value("similar_evidence", json::array());
  if (!evidence.empty()) {
    out += "## Similar evidence\n\n";
    for (const auto& e : evidence) {
      const json id = e.value("id", json());
      out += "- [" + e.value("category", "") + "] " + e.value("description", "") + " (id " +
             (id.is_string() ? id.get<std::string>() : id.dump()) + ")\n";
    }
  }
  while (out.size() > 1 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n')
    out.pop_back();
  return out;
}

}  // namespace togmal::analysis
