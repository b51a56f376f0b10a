#include "togmal/policy/classifier.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tables.h"
#include "togmal/util/config_file.h"
#include "togmal/util/glob.h"
#include "togmal/util/paths.h"
#include "walker.h"

namespace togmal::policy {
namespace {

/// The host of an http(s) URL, lower case; empty for anything else, and for
/// a URL with a user or a port, which no reference site needs.
std::string HostOf(std::string_view url) {
  const std::string lower = util::AsciiLower(url);
  std::string_view rest = lower;
  if (rest.starts_with("https://")) {
    rest.remove_prefix(8);
  } else if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else {
    return {};
  }
  const std::string_view host = rest.substr(0, rest.find_first_of("/?#"));
  if (host.find_first_of("@:\\ ") != std::string_view::npos) return {};
  return std::string(host);
}

/// The host, when a URL is on one of the reference documentation sites. A
/// pattern with a '/' names a part of a site (`huggingface.co/docs/**`, where
/// the rest of the host is its users' pages) and is matched against the host
/// and path, without the query.
std::optional<std::string> ReferenceHost(std::string_view url,
                                         const std::vector<std::string>& hosts) {
  const std::string host = HostOf(url);
  if (host.empty()) return std::nullopt;
  // HostOf accepted the URL: it starts with the scheme's `//`, then the host.
  const std::string lower = util::AsciiLower(url);
  const std::string_view after_host =
      std::string_view(lower).substr(lower.find("//") + 2 + host.size());
  std::string path;
  if (after_host.starts_with("/")) path = after_host.substr(0, after_host.find_first_of("?#"));
  // `..` could climb out of the part of the site the pattern names.
  if (path.find("/..") != std::string::npos || path.find('%') != std::string::npos) path.clear();
  for (const std::string& pattern : hosts) {
    if (pattern.find('/') == std::string::npos) {
      if (util::GlobMatches(pattern, host)) return host;
    } else if (!path.empty() && util::GlobMatches(pattern, host + path)) {
      return host + path.substr(0, path.find('/', 1));
    }
  }
  return std::nullopt;
}

/// A run of 20 or more token characters mixing letters and digits: the shape
/// of an API key, a token, a hash of a secret or a base64 blob; no word of a
/// search query looks like that.
bool LooksLikeSecret(std::string_view text) {
  if (text.find("-----BEGIN") != std::string_view::npos) return true;
  std::size_t length = 0, digits = 0, letters = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const auto c = i < text.size() ? static_cast<unsigned char>(text[i]) : ' ';
    if (std::isalnum(c) != 0 || c == '_' || c == '+' || c == '=' || c == '-') {
      ++length;
      digits += std::isdigit(c) != 0 ? 1 : 0;
      letters += std::isalpha(c) != 0 ? 1 : 0;
      continue;
    }
    if (length >= 20 && digits >= 3 && letters >= 3) return true;
    length = digits = letters = 0;
  }
  return false;
}

/// More text than any search query: a file's content on its way out.
constexpr std::size_t kMaxSentText = 500;

void Finish(Classification& result) {
  if (result.findings.empty()) {
    result.findings.push_back({Level::kL0, "There is nothing to run.", ""});
  }
  result.level = Level::kL0;
  for (const Finding& finding : result.findings) result.level = Max(result.level, finding.level);
  for (std::size_t i = 0; i < result.findings.size(); ++i) {
    if (result.findings[i].level == result.level) {
      result.deciding = i;
      break;
    }
  }
}

const ToolEntry* FindTool(const Tables& tables, std::string_view name) {
  for (const ToolEntry& tool : tables.tools) {
    if (tool.name == name) return &tool;
  }
  // The most specific (longest) pattern wins: mcp__github__* before mcp__*.
  const ToolEntry* best = nullptr;
  for (const ToolEntry& tool : tables.tools) {
    if (tool.name.find_first_of("*?") != std::string::npos && util::GlobMatches(tool.name, name) &&
        (best == nullptr || tool.name.size() > best->name.size())) {
      best = &tool;
    }
  }
  return best;
}

/// What a write tool puts into its file: `content` (Write), `old_string`/
/// `new_string`/`replace_all` (Edit), `edits[]` of those (MultiEdit).
/// Nullopt when the input holds none of them, or one malformed.
std::optional<WriteContent> ContentOf(const nlohmann::json& input) {
  if (!input.is_object()) return std::nullopt;
  WriteContent content;
  if (const auto whole = input.find("content"); whole != input.end()) {
    if (!whole->is_string()) return std::nullopt;
    content.whole = whole->get<std::string>();
    return content;
  }
  // A notebook cell (NotebookEdit): its new source is all the change holds.
  if (const auto cell = input.find("new_source"); cell != input.end()) {
    if (!cell->is_string()) return std::nullopt;
    content.whole = cell->get<std::string>();
    return content;
  }
  auto edit = [](const nlohmann::json& item) -> std::optional<TextEdit> {
    const auto old_text = item.find("old_string");
    const auto new_text = item.find("new_string");
    if (old_text == item.end() || new_text == item.end() || !old_text->is_string() ||
        !new_text->is_string()) {
      return std::nullopt;
    }
    const auto all = item.find("replace_all");
    return TextEdit{old_text->get<std::string>(), new_text->get<std::string>(),
                    all != item.end() && all->is_boolean() && all->get<bool>()};
  };
  if (const auto edits = input.find("edits"); edits != input.end()) {
    if (!edits->is_array()) return std::nullopt;
    for (const nlohmann::json& item : *edits) {
      auto one = item.is_object() ? edit(item) : std::nullopt;
      if (!one) return std::nullopt;
      content.edits.push_back(std::move(*one));
    }
    return content;
  }
  auto one = edit(input);
  if (!one) return std::nullopt;
  content.edits.push_back(std::move(*one));
  return content;
}

}  // namespace

Result<Classifier> Classifier::FromYaml(std::string_view yaml, std::string_view source,
                                        const Classifier* base) {
  auto tables =
      base != nullptr ? std::make_shared<Tables>(*base->tables_) : std::make_shared<Tables>();
  if (auto ok = ParseTables(yaml, source, *tables); !ok) return Fail(ok.error());
  return Classifier(std::move(tables));
}

Result<Classifier> Classifier::Compiled() {
  auto tables = std::make_shared<Tables>();
  TablesFromCompiled(kCompiledTables, *tables);
  tables->compiled_commands = std::make_shared<const LazyCommands>(kCompiledTables);
  return Classifier(std::move(tables));
}

Result<Classifier> Classifier::Load() {
  auto classifier = Compiled();
  if (!classifier) return classifier;
  const std::filesystem::path user_file = util::UserConfigFile("classifier.yaml");
  auto text = util::ReadConfigFile(user_file);  // a FIFO or device must not hang us
  if (!text) return Fail(text.error());
  if (!*text) return classifier;
  return FromYaml(**text, user_file.string(), &*classifier);
}

const Classifier& Classifier::Default() {
  // Never destroyed: a hook process exits right after one call, and tearing
  // the tables down would cost more than the lookups that used them.
  static const Classifier* const instance = [] {
    auto loaded = Load();
    if (loaded) return new Classifier(std::move(*loaded));
    spdlog::error("{}; using the built-in classifier tables", loaded.error());
    auto fallback = Compiled();
    if (fallback) return new Classifier(std::move(*fallback));
    spdlog::error("{}", fallback.error());
    return new Classifier(std::make_shared<Tables>());
  }();
  return *instance;
}

const Classifier& Classifier::Default(Profile profile) {
  if (profile == Profile::kStandard) return Default();
  static const Classifier* const strict = new Classifier(Default().WithProfile(Profile::kStrict));
  return *strict;
}

Classifier Classifier::WithProfile(Profile profile) const {
  if (tables_->settings.profile == profile) return *this;
  // A copy of the tables' header (lists, tools, parsed entries; the compiled
  // entries stay shared) with the profile's settings.
  auto tables = std::make_shared<Tables>(*tables_);
  if (profile == Profile::kStrict) {
    tables->standard_settings = tables->settings;
    tables->settings = tables->strict_settings;
  } else {
    tables->settings = tables->standard_settings;
  }
  tables->settings.profile = profile;
  return Classifier(std::move(tables));
}

Classification Classifier::ClassifyCommand(std::string_view command, std::string_view cwd) const {
  Classification result;
  Walker walker(*tables_, cwd, &result.findings, nullptr);
  walker.Line(command, SegmentOrigin::kCommandLine, 0);
  Finish(result);
  return result;
}

std::vector<ExecutedSegment> Classifier::ExecutedSegments(std::string_view command) const {
  std::vector<ExecutedSegment> segments;
  Walker walker(*tables_, {}, nullptr, &segments);
  walker.Line(command, SegmentOrigin::kCommandLine, 0);
  return segments;
}

Classification Classifier::Classify(const ToolCall& call) const {
  Classification result;
  Walker walker(*tables_, call.cwd, &result.findings, &result.segments);
  const ToolEntry* tool = FindTool(*tables_, call.tool_name);
  if (tool == nullptr) {
    walker.Add(tables_->settings.unknown_tool,
               "'" + util::OneLine(call.tool_name, 80) + "' is not a tool the classifier knows.",
               call.tool_name);
    Finish(result);
    return result;
  }
  const nlohmann::json& input = call.tool_input;
  auto field = [&](const std::string& name) -> std::optional<std::string> {
    if (!input.is_object()) return std::nullopt;
    const auto found = input.find(name);
    if (found == input.end() || !found->is_string()) return std::nullopt;
    return found->get<std::string>();
  };
  const std::string why = tool->why.empty() ? "'" + call.tool_name + "' " +
                                                  std::string(GenericPhrase(tool->level)) + "."
                                            : tool->why;
  if (!tool->command.empty()) {
    const auto command = field(tool->command);
    if (!command) {
      walker.Add(Max(tool->level, Level::kL2),
                 "The " + call.tool_name + " call has no '" + tool->command + "' to check.",
                 call.tool_name);
    } else {
      walker.Line(*command, SegmentOrigin::kCommandLine, 0);
    }
    Finish(result);
    return result;
  }
  // A path field the classifier cannot read (a number, a list) names no
  // file it could judge: not positively safe.
  for (const std::vector<std::string>* names : {&tool->writes, &tool->reads}) {
    for (const std::string& name : *names) {
      if (!input.is_object()) continue;
      const auto found = input.find(name);
      if (found != input.end() && !found->is_string()) {
        walker.Add(Max(tool->level, Level::kL2),
                   "The " + call.tool_name + " call's '" + name + "' is not text.", call.tool_name);
      }
    }
  }
  bool wrote = false;
  const std::optional<WriteContent> content =
      tool->writes.empty() ? std::nullopt : ContentOf(input);
  for (const std::string& name : tool->writes) {
    if (const auto path = field(name)) {
      walker.CheckWritePath(
          *path, tool->level, tool->outside_project.value_or(Max(tool->level, Level::kL2)), *path,
          call.tool_name == "Write" ? "Writes" : "Edits", content ? &*content : nullptr);
      wrote = true;
    }
  }
  const std::optional<std::string> url = tool->url.empty() ? std::nullopt : field(tool->url);
  if (const auto host = url ? ReferenceHost(*url, tool->reference_hosts) : std::nullopt; host) {
    walker.Add(
        Level::kL0,
        "Fetches documentation from '" + *host + "', a reference site: a public page, only read.",
        call.tool_name);
  } else if (!wrote) {
    walker.Add(tool->level, why, call.tool_name);
  }
  for (const std::string& name : tool->reads) {
    if (const auto path = field(name)) walker.CheckReadPath(*path, tool->level, *path);
  }
  for (const std::string& name : tool->sends) {
    const auto text = field(name);
    if (!text) {
      if (input.is_object() && input.contains(name)) {
        walker.Add(Max(tool->level, Level::kL2),
                   "The " + call.tool_name + " call's '" + name + "' is not text.", call.tool_name);
      }
    } else if (LooksLikeSecret(*text)) {
      walker.Add(Max(tool->level, Level::kL2),
                 "The " + call.tool_name + " call's '" + name +
                     "' holds what looks like a key or token, and it leaves the machine.",
                 call.tool_name);
    } else if (text->size() > kMaxSentText) {
      walker.Add(Max(tool->level, Level::kL2),
                 "The " + call.tool_name + " call's '" + name + "' carries " +
                     std::to_string(text->size()) +
                     " characters out of the machine, more than a query needs.",
                 call.tool_name);
    }
  }
  // Grep for `password` in ~: where it looks is its first path field, else
  // the directory the call runs in.
  if (!tool->searches.empty()) {
    const std::optional<std::string> path =
        tool->reads.empty() ? std::nullopt : field(tool->reads.front());
    const std::string where = path ? *path : call.cwd;
    for (const std::string& name : tool->searches) {
      if (const auto searched = field(name)) {
        walker.SearchedForSecrets(*searched, where, call.tool_name);
      }
    }
  }
  Finish(result);
  return result;
}

nlohmann::json ToJson(const Classification& classification) {
  nlohmann::json reasons = nlohmann::json::array();
  for (const Finding& finding : classification.findings) {
    nlohmann::json reason = {{"level", LevelName(finding.level)}, {"why", finding.why}};
    if (!finding.segment.empty()) reason["segment"] = finding.segment;
    reasons.push_back(std::move(reason));
  }
  const Finding& deciding = classification.Deciding();
  nlohmann::json out = {{"level", LevelName(classification.level)},
                        {"why", deciding.why},
                        {"reasons", std::move(reasons)}};
  if (!deciding.segment.empty()) out["segment"] = deciding.segment;
  return out;
}

}  // namespace togmal::policy
