// The page: fragments rendered here, each value escaped, then put into the
// embedded template's {{placeholders}} in one pass (a value that reads like
// a placeholder stays text: substituted text is never scanned again).
#include <algorithm>
#include <map>
#include <stdexcept>

#include "chart.h"
#include "togmal/report/report.h"
#include "togmal/util/embedded.h"
#include "togmal/util/text.h"

namespace togmal::report {
namespace {

using nlohmann::json;

constexpr std::size_t kTopActions = 15;
constexpr std::size_t kTopRows = 25;

std::string E(std::string_view text) { return EscapeHtml(text); }

std::string Count(int64_t n) { return std::to_string(n); }

int64_t Sum(const store::DecisionCountMap& counts) {
  int64_t total = 0;
  for (const auto& [decision, count] : counts) total += count;
  return total;
}

int64_t Of(const store::DecisionCountMap& counts, const std::string& decision) {
  auto found = counts.find(decision);
  return found == counts.end() ? 0 : found->second;
}

// A stacked bar of the four decisions in CSS (widths in per cent of the row's total).
std::string InlineBar(const store::DecisionCountMap& counts, int64_t widest) {
  const int64_t total = Sum(counts);
  if (total == 0 || widest == 0) return "";
  std::string bar =
      "<div class=\"bar\" style=\"width:" + std::to_string(total * 100 / widest) + "%\">";
  for (const char* decision : kDecisionOrder) {
    const int64_t n = Of(counts, decision);
    if (n == 0) continue;
    bar += "<span class=\"" + std::string(decision) + "\" style=\"flex-grow:" + Count(n) +
           "\"></span>";
  }
  return bar + "</div>";
}

// A table of key → counts by decision, largest first.
std::string BreakdownTable(const std::map<std::string, store::DecisionCountMap>& rows,
                           const std::string& key_name, const std::string& empty_key) {
  if (rows.empty()) return "<p class=\"empty\">nothing recorded</p>";
  std::vector<std::pair<std::string, const store::DecisionCountMap*>> sorted;
  for (const auto& [key, counts] : rows) sorted.emplace_back(key, &counts);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return Sum(*a.second) > Sum(*b.second); });
  const int64_t widest = Sum(*sorted.front().second);
  std::string html = "<table><thead><tr><th>" + E(key_name) +
                     "</th><th class=\"n\">allow</th><th class=\"n\">pass</th><th "
                     "class=\"n\">ask</th><th class=\"n\">deny</th><th class=\"n\">total</th><th "
                     "class=\"barcell\"></th></tr></thead><tbody>\n";
  std::size_t shown = 0;
  for (const auto& [key, counts] : sorted) {
    if (++shown > kTopRows) break;
    html += "<tr><td><code>" + (key.empty() ? E(empty_key) : E(key)) + "</code></td>";
    for (const char* decision : kDecisionOrder) {
      html += "<td class=\"n\">" + Count(Of(*counts, decision)) + "</td>";
    }
    html += "<td class=\"n total\">" + Count(Sum(*counts)) + "</td><td class=\"barcell\">" +
            InlineBar(*counts, widest) + "</td></tr>\n";
  }
  html += "</tbody></table>";
  if (sorted.size() > kTopRows) {
    html += "<p class=\"more\">and " + Count(static_cast<int64_t>(sorted.size() - kTopRows)) +
            " more</p>";
  }
  return html;
}

std::string Answers(const store::ActionTally& action) {
  const int64_t answered = action.approved + action.refused + action.unknown;
  if (answered == 0) return "";
  std::string text = "approved " + Count(action.approved) + " of " + Count(answered);
  if (action.refused > 0) text += ", refused " + Count(action.refused);
  if (action.unknown > 0) text += ", no answer recorded for " + Count(action.unknown);
  return text;
}

// The actions that were given `decision` most often: what they did, where,
// why, and the line that lets them through.
std::string TopActions(const store::DecisionSummary& summary, const std::string& decision) {
  std::vector<const store::ActionTally*> actions;
  for (const store::ActionTally& action : summary.actions) {
    if (Of(action.by_decision, decision) > 0) actions.push_back(&action);
  }
  if (actions.empty()) return "<p class=\"empty\">none in this period</p>";
  std::stable_sort(actions.begin(), actions.end(), [&decision](auto* a, auto* b) {
    return Of(a->by_decision, decision) > Of(b->by_decision, decision);
  });
  const bool answered = decision == "ask" || decision == "pass";
  std::string html =
      "<table class=\"actions\"><thead><tr><th class=\"n\">times</th><th>level</th>"
      "<th>tool</th><th>call</th><th>project</th><th>reason</th>" +
      std::string(answered ? "<th>answers</th>" : "") +
      "<th>let it through</th></tr></thead><tbody>\n";
  std::size_t shown = 0;
  for (const store::ActionTally* action : actions) {
    if (++shown > kTopActions) break;
    html += "<tr><td class=\"n\">" + Count(Of(action->by_decision, decision)) + "</td><td>" +
            E(action->level) + "</td><td>" + E(action->tool_name) + "</td><td><code>" +
            E(util::Shorten(ShownInput(action->input), 400)) + "</code></td><td><code>" +
            E(action->cwd) + "</code></td><td class=\"reason\">" +
            E(util::Shorten(action->reason, 600)) + "</td>";
    if (answered) html += "<td>" + E(Answers(*action)) + "</td>";
    html += "<td>";
    if (!action->allow_code.empty()) {
      html += "<code class=\"allow\">" + E("togmal allow " + action->allow_code) + "</code>";
    }
    html += "</td></tr>\n";
  }
  html += "</tbody></table>";
  if (actions.size() > kTopActions) {
    html += "<p class=\"more\">and " + Count(static_cast<int64_t>(actions.size() - kTopActions)) +
            " more</p>";
  }
  return html;
}

// "2026-11-27 14:05 UTC" of a stored time.
std::string Minute(const std::string& time) {
  if (time.size() < 16) return time;
  std::string shown = time.substr(0, 16) + " UTC";
  shown[10] = ' ';
  return shown;
}

std::string Period(const store::AuditFilter& filter) {
  std::string text = filter.since.empty() ? "everything recorded" : "since " + Minute(filter.since);
  if (!filter.until.empty()) text += ", before " + Minute(filter.until);
  if (!filter.project.empty()) text += ", in " + filter.project;
  return text;
}

std::string Suggestions(const ReportData& data) {
  const store::DecisionSummary& s = data.decisions;
  const int64_t answered = s.approved + s.refused + s.unknown;
  std::string html = "<p class=\"answers\">Asked or passed to the person: <b id=\"answered\">" +
                     Count(answered) + "</b> calls; approved <b id=\"approved\">" +
                     Count(s.approved) + "</b>, refused <b id=\"refused\">" + Count(s.refused) +
                     "</b>, no answer recorded <b id=\"unknown\">" + Count(s.unknown) + "</b>.";
  if (answered > 0 && s.unknown == answered) {
    html +=
        " No outcome is recorded: the host's after-the-call hooks are not installed (run "
        "<code>togmal install</code> again) or it sends none.";
  }
  html += "</p>\n";
  if (data.suggestions.empty()) {
    html += "<p class=\"empty\">No suggestion: nothing was approved " + Count(kMinApprovals) +
            " times or more without being refused.</p>";
    return html;
  }
  const std::string since =
      data.filter.since.empty() ? std::string() : " since " + data.filter.since.substr(0, 10);
  html += "<ul class=\"suggestions\">\n";
  for (const Suggestion& suggestion : data.suggestions) {
    html += "<li><p>approved <code>" + E(suggestion.group) + " …</code> " +
            Count(suggestion.approved) + " of " + Count(suggestion.answered) + " times" + E(since) +
            ":</p>";
    for (const std::string& line : suggestion.allow_lines) {
      html += "<code class=\"allow\">" + E(line) + "</code>";
    }
    if (suggestion.more > 0) {
      html += "<p class=\"more\">and " + Count(static_cast<int64_t>(suggestion.more)) +
              " more commands of this kind</p>";
    }
    html += "</li>\n";
  }
  html += "</ul>";
  return html;
}

std::string Grants(const std::vector<store::AllowGrant>& grants) {
  if (grants.empty()) return "<p class=\"empty\">no active grants</p>";
  std::string html =
      "<table><thead><tr><th>code</th><th>scope</th><th class=\"n\">used</th><th>granted</th>"
      "<th>tool</th><th>call</th><th>project</th></tr></thead><tbody>\n";
  for (const store::AllowGrant& grant : grants) {
    std::string scope(store::GrantScopeName(grant.scope));
    if (grant.scope == store::GrantScope::kUntil) scope += " " + grant.expires_at;
    if (grant.scope == store::GrantScope::kAlways) scope += " (rule " + grant.rule_id + ")";
    html += "<tr><td><code>" + E(grant.code) + "</code></td><td>" + E(scope) +
            "</td><td class=\"n\">" + Count(grant.uses) + "</td><td>" + E(grant.created_at) +
            "</td><td>" + E(grant.tool_name) + "</td><td><code>" +
            E(util::Shorten(ShownInput(grant.input), 400)) + "</code></td><td><code>" +
            E(grant.cwd) + "</code></td></tr>\n";
  }
  return html + "</tbody></table>";
}

std::string Chain(const store::VerifyReport& chain) {
  std::string html;
  if (chain.ok) {
    html = "<p class=\"chain ok\" id=\"chain-state\">audit trail OK: " + Count(chain.checked) +
           " entries verified";
    if (chain.anchor_id) html += " (entries up to #" + Count(*chain.anchor_id) + " pruned)";
    html += "</p><p>tip hash: <code>" + E(chain.tip_hash) + "</code></p>";
  } else {
    html = "<p class=\"chain broken\" id=\"chain-state\">audit trail BROKEN at entry #" +
           Count(chain.broken_id.value_or(0)) + ": " + E(chain.problem) + "</p>";
  }
  return html;
}

std::string Taxonomy(const ReportData& data) {
  const store::TaxonomyStatistics& t = data.taxonomy;
  std::string html = "<p>" + Count(t.used) + " of " + Count(t.capacity) +
                     " entries (evidence people submitted of LLM failures and false alarms; "
                     "<code>togmal train</code> learns from it).</p>\n<div class=\"pair\">"
                     "<table><thead><tr><th>category</th><th class=\"n\">entries</th></tr>"
                     "</thead><tbody>\n";
  for (const auto& [category, count] : t.by_category) {
    html += "<tr><td>" + E(category) + "</td><td class=\"n\">" + Count(count) + "</td></tr>\n";
  }
  html +=
      "</tbody></table><table><thead><tr><th>severity</th><th class=\"n\">entries</th></tr>"
      "</thead><tbody>\n";
  for (std::string_view severity : store::kSeverities) {
    auto found = t.by_severity.find(std::string(severity));
    html += "<tr><td>" + E(severity) + "</td><td class=\"n\">" +
            Count(found == t.by_severity.end() ? 0 : found->second) + "</td></tr>\n";
  }
  html += "</tbody></table></div>\n";
  if (data.evidence.empty()) return html + "<p class=\"empty\">no evidence submitted</p>";
  html +=
      "<h3>Newest entries</h3><table><thead><tr><th>added</th><th>category</th>"
      "<th>severity</th><th>verdict</th><th>description</th></tr></thead><tbody>\n";
  for (const store::Evidence& entry : data.evidence) {
    html += "<tr><td>" + E(entry.created_at) + "</td><td>" + E(entry.category) + "</td><td>" +
            E(entry.severity) + "</td><td>" + E(entry.verdict) + "</td><td>" +
            E(util::Shorten(entry.description, 600)) + "</td></tr>\n";
  }
  return html + "</tbody></table>";
}

std::string Totals(const store::DecisionSummary& s) {
  std::string html = "<div class=\"card\"><span class=\"figure\" id=\"count-total\">" +
                     Count(s.total) + "</span><span class=\"label\">decisions</span></div>";
  for (const char* decision : kDecisionOrder) {
    html += "<div class=\"card " + std::string(decision) + "\"><span class=\"figure\" id=\"count-" +
            decision + "\">" + Count(Of(s.by_decision, decision)) +
            "</span><span class=\"label\">" + decision + "</span></div>";
  }
  return html;
}

// Replaces each {{name}} of `page` with fragments[name], left to right.
std::string Fill(std::string_view page, const std::map<std::string, std::string>& fragments) {
  std::string out;
  out.reserve(page.size() * 2);
  std::size_t at = 0;
  while (true) {
    const std::size_t open = page.find("{{", at);
    if (open == std::string_view::npos) break;
    const std::size_t close = page.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    out.append(page.substr(at, open - at));
    const std::string name(page.substr(open + 2, close - open - 2));
    auto found = fragments.find(name);
    if (found == fragments.end()) {
      // A template that names a fragment the binary does not make is a build mistake.
      throw std::logic_error("report.html names an unknown fragment {{" + name + "}}");
    }
    out += found->second;
    at = close + 2;
  }
  out.append(page.substr(at));
  return out;
}

}  // namespace

std::string EscapeHtml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string ShownInput(const json& input) {
  if (input.is_object()) {
    for (const char* key : {"command", "file_path", "url", "path", "pattern"}) {
      auto found = input.find(key);
      if (found != input.end() && found->is_string()) return found->get<std::string>();
    }
  }
  if (input.is_string()) return input.get<std::string>();
  return input.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string RenderReport(const ReportData& data) {
  const std::optional<std::string_view> page = util::FindEmbeddedFile("report.html");
  if (!page) throw std::logic_error("report.html is not embedded in this build");
  const store::DecisionSummary& s = data.decisions;
  std::string first_day = data.filter.since.substr(0, 10);
  if (first_day.empty() && !s.by_day.empty()) first_day = s.by_day.begin()->first;
  std::string last_day = data.generated_at.substr(0, 10);
  if (!data.filter.until.empty()) last_day = std::min(last_day, data.filter.until.substr(0, 10));
  const std::map<std::string, std::string> fragments = {
      {"period", E(Period(data.filter))},
      {"database", E(data.database)},
      {"generated", E(data.generated_at)},
      {"totals", Totals(s)},
      {"chart", DecisionChartSvg(s.by_day, first_day, last_day)},
      {"by_project", BreakdownTable(s.by_project, "project (working directory)", "(none sent)")},
      {"by_tool", BreakdownTable(s.by_tool, "tool", "(none)")},
      {"top_asked", TopActions(s, "ask")},
      {"top_passed", TopActions(s, "pass")},
      {"top_denied", TopActions(s, "deny")},
      {"answers", Suggestions(data)},
      {"grants", Grants(data.grants)},
      {"chain", Chain(data.chain)},
      {"taxonomy", Taxonomy(data)},
  };
  return Fill(*page, fragments);
}

}  // namespace togmal::report
