// `togmal rules validate|explain|test`: check rule files, see why a tool call
// gets its decision, and run policy unit tests (a YAML list of tool calls with
// the decisions they must get).
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coded_call.h"
#include "command.h"
#include "database_option.h"
#include "togmal/check/judge.h"
#include "togmal/rules/decision.h"
#include "togmal/rules/rule_loader.h"
#include "togmal/util/config_file.h"
#include "togmal/util/json_parse.h"
#include "togmal/util/settings_layers.h"
#include "togmal/util/text.h"
#include "togmal/util/yaml.h"

namespace togmal::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string CurrentDir() {
  std::error_code error;
  fs::path cwd = fs::current_path(error);
  return error ? std::string() : cwd.string();
}

int Validate(const std::string& file) {
  if (!file.empty()) {
    auto parsed = rules::ReadRuleFile(file, rules::Layer::kUser, /*compile_regexes=*/true);
    if (!parsed) {
      std::cerr << parsed.error() << "\n";
      return kExitDataErr;
    }
    std::cout << file << ": " << parsed->rules.size() << " rules, valid\n";
    return kExitOk;
  }
  std::vector<std::string> settings_errors;
  check::ReadDecisionSettings(util::LoadSettingsLayers(), settings_errors);
  rules::LoadOptions load;
  load.cwd = CurrentDir();
  load.compile_regexes = true;
  auto set = rules::LoadRules(load);
  if (!set) {
    std::cerr << set.error() << "\n";
    return kExitDataErr;
  }
  for (const std::string& source : set->files) {
    std::size_t count = 0;
    std::string layer;
    for (const rules::Rule& rule : set->rules) {
      if (rule.file != source) continue;
      ++count;
      layer = " (" + std::string(rules::LayerName(rule.layer)) + ")";
    }
    std::cout << source << layer << ": " << count << " rules in force\n";
  }
  for (const std::string& warning : set->warnings) std::cout << "warning: " << warning << "\n";
  // A broken file is left out of the policy (never loosening it, and asking
  // where the policy would allow), and validation must say so and fail.
  for (const std::string& error : set->ignored) std::cerr << error << "\n";
  for (const std::string& error : settings_errors) std::cerr << error << "\n";
  if (!set->ignored.empty() || !settings_errors.empty()) return kExitDataErr;
  std::cout << set->rules.size() << " rules, valid\n";
  return kExitOk;
}

// Decides exactly as the hook does, recording no decision; a SAMPLE stays
// visible as such (the hook then asks; `serve` asks the client's model). With
// `remember`, the answer's allow code is remembered for `togmal allow`.
Result<rules::Decision> Explain(const policy::ToolCall& call,
                                const DatabaseOption* remember = nullptr) {
  std::vector<std::string> broken;
  auto judged = check::JudgeWhatIf(call, check::SampleShown::kAsSample, broken);
  if (!judged) return Fail(judged.error());
  for (const std::string& why : broken) {
    std::cerr << "warning: " << why << " (nothing is auto-approved until it is fixed)\n";
  }
  check::Judgement& judgement = *judged;
  if (judgement.decision.source == rules::Source::kError) return Fail(judgement.decision.reason);
  if (remember != nullptr) RememberCode(call, judgement, *remember);
  return std::move(judgement.decision);
}

std::string Outcome(const rules::Decision& decision) {
  if (decision.source == rules::Source::kRule && decision.action == rules::Action::kSample) {
    return "sample";
  }
  return std::string(rules::PermissionName(decision.permission));
}

struct ExplainOptions {
  DatabaseOption db;
  std::string tool;
  std::string input = "{}";
  std::string cwd;
  bool json_output = false;
};

int RunExplain(const ExplainOptions& options) {
  policy::ToolCall call;
  call.tool_name = options.tool;
  call.cwd = options.cwd.empty() ? CurrentDir() : options.cwd;
  auto input = util::ParseJson(options.input);
  if (input) call.tool_input = std::move(*input);
  if (!input || !call.tool_input.is_object()) {
    std::cerr << "--input must be a JSON object, e.g. '{\"command\": \"ls\"}'\n";
    return kExitUsage;
  }
  auto decision = Explain(call, &options.db);
  if (!decision) {
    std::cerr << decision.error() << "\n";
    return kExitDataErr;
  }
  if (options.json_output) {
    json out = rules::DecisionJson(*decision);
    out["outcome"] = Outcome(*decision);
    out["reason"] = decision->reason;
    if (!decision->rule_where.empty()) {
      out["rule_where"] = decision->rule_where;
      out["rule_layer"] = rules::LayerName(decision->rule_layer);
    }
    if (!decision->tightened_by.empty()) out["tightened_by"] = decision->tightened_by;
    std::cout << out.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  std::cout << "decision:   " << Outcome(*decision);
  if (Outcome(*decision) == "sample") {
    std::cout << " (the hook asks; `serve` asks the client's model when it can)";
  }
  std::cout << "\nlevel:      " << policy::LevelName(decision->level) << "\ndecided by: ";
  if (decision->source == rules::Source::kRule) {
    std::cout << "rule " << decision->rule_id << " (" << rules::LayerName(decision->rule_layer)
              << " layer, " << decision->rule_where << ")\n";
  } else {
    std::cout << "the classifier's level (no rule matched)\n";
  }
  std::cout << "reason:     " << decision->reason << "\n";
  if (!decision->tightened_by.empty())
    std::cout << "note:       " << decision->tightened_by << "\n";
  if (!decision->notice.empty()) std::cout << "notice:     " << decision->notice << "\n";
  if (!decision->sampling_guidance.empty()) {
    std::cout << "guidance:   " << decision->sampling_guidance << "\n";
  }
  std::cout << "findings:\n";
  for (const policy::Finding& finding : decision->findings) {
    std::cout << "  " << policy::LevelName(finding.level) << "  " << finding.why;
    if (!finding.segment.empty()) std::cout << "  [" << finding.segment.substr(0, 120) << "]";
    std::cout << "\n";
  }
  return kExitOk;
}

int RunTests(const std::string& file, const std::string& default_cwd) {
  auto text = util::ReadConfigFile(file);
  if (!text || !*text) {
    std::cerr << (text ? file + ": no such file" : text.error()) << "\n";
    return kExitDataErr;
  }
  auto parsed = util::ParseYaml(**text, file);
  if (!parsed) {
    std::cerr << parsed.error() << "\n";
    return kExitDataErr;
  }
  const YAML::Node& root = *parsed;
  YAML::Node cases = root.IsMap() ? root["cases"] : root;
  if (!cases || !cases.IsSequence()) {
    std::cerr << file << ":1: expected a list of cases (or `cases:` with one)\n";
    return kExitDataErr;
  }
  int passed = 0, failed = 0;
  for (const YAML::Node& item : cases) {
    std::string where = file + ":" + std::to_string(item.Mark().line + 1);
    YAML::Node tool = item["tool"] ? item["tool"] : item["tool_name"];
    YAML::Node expect = item["expect"];
    if (!item.IsMap() || !tool || !expect) {
      std::cerr << where << ": each case needs tool and expect (allow, ask, deny or sample)\n";
      return kExitDataErr;
    }
    std::string expected = expect.Scalar();
    if (expected != "allow" && expected != "ask" && expected != "deny" && expected != "sample") {
      std::cerr << where << ": expect must be allow, ask, deny or sample, got " << expected << "\n";
      return kExitDataErr;
    }
    policy::ToolCall call;
    call.tool_name = tool.Scalar();
    YAML::Node input = item["input"] ? item["input"] : item["tool_input"];
    if (input) call.tool_input = util::YamlToJson(input, util::YamlScalars::kTyped);
    if (!call.tool_input.is_object()) {
      std::cerr << where << ": input must be a map\n";
      return kExitDataErr;
    }
    call.cwd = item["cwd"] ? item["cwd"].Scalar() : default_cwd;
    if (item["agent_type"]) call.agent_type = item["agent_type"].Scalar();
    if (item["agent_id"]) call.agent_id = item["agent_id"].Scalar();
    std::string name =
        item["name"] ? item["name"].Scalar() : call.tool_name + " " + call.tool_input.dump();
    name = util::Shorten(name, 100);

    auto decision = Explain(call);
    if (!decision) {
      std::cerr << decision.error() << "\n";
      return kExitDataErr;
    }
    std::string got = Outcome(*decision);
    bool ok = got == expected;
    std::string expected_rule = item["rule"] ? item["rule"].Scalar() : "";
    if (ok && item["rule"] && decision->rule_id != expected_rule) ok = false;
    if (ok) {
      ++passed;
      std::cout << "PASS  " << name << "\n";
    } else {
      ++failed;
      std::cout << "FAIL  " << name << " (" << where << ")\n      expected " << expected;
      if (!expected_rule.empty()) std::cout << " by rule " << expected_rule;
      std::cout << ", got " << got;
      if (!decision->rule_id.empty()) std::cout << " by rule " << decision->rule_id;
      std::cout << ": " << decision->reason << "\n";
    }
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? kExitOk : kExitFailure;
}

}  // namespace

Action DefineRules(CLI::App& command) {
  command.require_subcommand(1);
  auto action = std::make_shared<Action>();

  CLI::App* validate = command.add_subcommand(
      "validate",
      "Check rule files; without FILE, every layer in force here (errors name file:line)");
  auto file = std::make_shared<std::string>();
  validate->add_option("FILE", *file, "A rule file to check on its own");
  validate->callback([action, file] { *action = [file] { return Validate(*file); }; });

  CLI::App* explain =
      command.add_subcommand("explain", "Show which rule or level decides a tool call, and why");
  auto explain_options = std::make_shared<ExplainOptions>();
  explain_options->db = AddDatabaseOption(*explain);
  explain->add_option("--tool", explain_options->tool, "Tool name: Bash, Write, mcp__x__y, ...")
      ->required();
  explain
      ->add_option("--input", explain_options->input,
                   "The tool's input as a JSON object, e.g. '{\"command\": \"git push\"}'")
      ->capture_default_str();
  explain->add_option("--cwd", explain_options->cwd,
                      "The agent's working directory (finds .togmal/rules.yaml; default: here)");
  explain->add_flag("--json", explain_options->json_output, "Print as JSON");
  explain->callback([action, explain_options] {
    *action = [explain_options] { return RunExplain(*explain_options); };
  });

  CLI::App* test = command.add_subcommand(
      "test", "Run a YAML list of tool calls with expected decisions; exit 1 on any miss");
  auto test_file = std::make_shared<std::string>();
  auto test_cwd = std::make_shared<std::string>();
  test->add_option("FILE", *test_file, "Cases: [{name?, tool, input, cwd?, expect, rule?}]")
      ->required();
  test->add_option("--cwd", *test_cwd, "Working directory for cases without cwd (default: here)");
  test->callback([action, test_file, test_cwd] {
    *action = [test_file, test_cwd] {
      return RunTests(*test_file, test_cwd->empty() ? CurrentDir() : *test_cwd);
    };
  });

  return [action] { return *action ? (*action)() : kExitUsage; };
}

}  // namespace togmal::cli
