// `togmal allow CODE`: the user lets one denied or asked action through. The
// code comes from the decision's reason; the call it names is found in the
// audit trail or among `togmal check`'s questions (its fingerprint: tool, the
// input fields that act, working directory), so the grant covers exactly that
// action, however the agent words it. The agent cannot run this itself: the
// classifier puts `togmal allow` at L3.
#include <re2/re2.h>

#include <charconv>
#include <chrono>
#include <iostream>
#include <memory>
#include <string>

#include "command.h"
#include "database_option.h"
#include "togmal/rules/rule_loader.h"
#include "togmal/rules/user_rule_file.h"
#include "togmal/store/allow_grants.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"
#include "togmal/store/redaction.h"
#include "togmal/util/json_dump.h"
#include "togmal/util/text.h"

namespace togmal::cli {
namespace {

using json = nlohmann::json;

struct AllowOptions {
  DatabaseOption db;
  std::string code;
  bool once = false;
  std::string for_duration;
  bool always = false;
  bool list = false;
  bool all = false;
  bool revoke = false;
};

// "90s", "30m", "1h", "2d" → seconds; nullopt when malformed or not positive.
std::optional<std::chrono::seconds> ParseDuration(std::string_view text) {
  if (text.size() < 2) return std::nullopt;
  long long count = 0;
  const char* end = text.data() + text.size() - 1;
  auto [stop, error] = std::from_chars(text.data(), end, count);
  if (error != std::errc() || stop != end || count <= 0 || count > 366LL * 24 * 3600) {
    return std::nullopt;
  }
  switch (text.back()) {
    case 's':
      return std::chrono::seconds(count);
    case 'm':
      return std::chrono::minutes(count);
    case 'h':
      return std::chrono::hours(count);
    case 'd':
      return std::chrono::hours(24 * count);
    default:
      return std::nullopt;
  }
}

std::string Describe(const std::string& tool, const json& input, const std::string& cwd) {
  std::string what = tool;
  if (input.is_object() && input.contains("command") && input["command"].is_string()) {
    what += " `" + util::Shorten(input["command"].get<std::string>(), 200) + "`";
  } else {
    // What acts, as the code names it: no description, a Write's content as its digest.
    what += " " + util::Shorten(util::DumpJson(store::CallAction(tool, input)), 200);
  }
  if (!cwd.empty()) what += " in " + cwd;
  return what;
}

// An exact-match pattern for the rule file: a JSON string is valid YAML.
std::string ExactRegex(std::string_view value) {
  return "{regex: " + util::DumpJson(json("^" + RE2::QuoteMeta(value) + "$")) + "}";
}

// The user rule for --always: this tool, this working directory and the
// values of the input fields that act (store::FieldActs), exactly; never the
// agent's wording (a Bash description). Nested values cannot be matched
// exactly, and a redacted secret would match the wrong text: both are refused.
Result<std::string> AlwaysRuleItem(const store::CodedCall& call, const std::string& id) {
  if (!call.input.is_object()) return Fail("the call's input is not an object");
  std::string parameters;
  for (const auto& [key, value] : call.input.items()) {
    if (!store::FieldActs(call.tool_name, key)) continue;
    if (value.is_object() || value.is_array()) {
      return Fail("its input has a nested value (" + key +
                  ") that a rule cannot match exactly; use --for or --once");
    }
    const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    if (text.find(store::kRedacted) != std::string::npos) {
      return Fail("the audit trail redacted a secret in its input (" + key +
                  "), so a rule could not match it; use --for or --once");
    }
    parameters += "        " + util::DumpJson(json(key)) + ": " + ExactRegex(text) + "\n";
  }
  std::string item = "  - id: " + id + "\n    priority: 1\n    conditions:\n";
  item += "      tool_name: " + ExactRegex(call.tool_name) + "\n";
  if (!call.cwd.empty()) item += "      cwd: " + ExactRegex(call.cwd) + "\n";
  if (!parameters.empty()) item += "      parameters:\n" + parameters;
  item += "    action: ALLOW\n    reason: let through by `togmal allow " +
          store::AllowCode(call.fingerprint) + " --always`\n";
  return item;
}

// "once (not used yet)", "until TIME", "always (rule ID)".
std::string Covers(const store::AllowGrant& grant) {
  switch (grant.scope) {
    case store::GrantScope::kOnce:
      return "once (not used yet)";
    case store::GrantScope::kUntil:
      return "until " + grant.expires_at;
    case store::GrantScope::kAlways:
      return "always (rule " + grant.rule_id + ")";
  }
  return "";
}

int List(store::AllowGrants& grants, bool all) {
  auto listed = grants.List(all);
  if (!listed) {
    std::cerr << "togmal allow: " << listed.error() << "\n";
    return kExitFailure;
  }
  if (listed->empty()) {
    std::cout << "no " << (all ? "" : "active ") << "allow grants\n";
    return kExitOk;
  }
  for (const store::AllowGrant& grant : *listed) {
    std::string scope(store::GrantScopeName(grant.scope));
    if (grant.scope == store::GrantScope::kUntil) scope += " " + grant.expires_at;
    if (grant.scope == store::GrantScope::kAlways) scope += " (rule " + grant.rule_id + ")";
    std::cout << grant.code << "  " << scope << "  used " << grant.uses << "x"
              << (grant.revoked_at.empty() ? "" : "  revoked " + grant.revoked_at) << "  "
              << Describe(grant.tool_name, grant.input, grant.cwd) << "\n";
  }
  return kExitOk;
}

int Revoke(store::AllowGrants& grants, const std::string& code) {
  auto revoked = grants.Revoke(code);
  if (!revoked) {
    std::cerr << "togmal allow: " << revoked.error() << "\n";
    return kExitFailure;
  }
  if (revoked->empty()) {
    std::cerr << "togmal allow: no active grant has the code " << code << "\n";
    return kExitFailure;
  }
  for (const store::AllowGrant& grant : *revoked) {
    if (grant.scope == store::GrantScope::kAlways && !grant.rule_id.empty()) {
      auto removed = rules::RemoveUserRule(rules::UserRulesPath(), grant.rule_id);
      if (!removed) {
        std::cerr << "togmal allow: " << removed.error() << "\n";
        return kExitFailure;
      }
      if (*removed) {
        std::cout << "removed rule " << grant.rule_id << " from " << rules::UserRulesPath().string()
                  << "\n";
      }
    }
    std::cout << "revoked " << grant.code << " (" << store::GrantScopeName(grant.scope) << ")\n";
  }
  return kExitOk;
}

int Grant(store::AllowGrants& grants, const AllowOptions& options, const std::string& code) {
  auto found = grants.FindCall(code);
  if (!found) {
    std::cerr << "togmal allow: " << found.error() << "\n";
    return kExitFailure;
  }
  if (!*found) {
    std::cerr << "togmal allow: no denied or asked call with the code " << code
              << " is in the audit trail or among `togmal check`'s questions (the code ends "
                 "the reason of a deny or ask)\n";
    return kExitFailure;
  }
  const store::CodedCall& call = **found;
  const std::string what = Describe(call.tool_name, call.input, call.cwd);
  if (options.always) {
    // A second --always for the same action would write a second rule.
    auto existing = grants.ActiveAlways(call.fingerprint);
    if (!existing) {
      std::cerr << "togmal allow: " << existing.error() << "\n";
      return kExitFailure;
    }
    if (*existing) {
      std::cout << "already allowed " << Covers(**existing) << ": " << what << "\n";
      return kExitOk;
    }
    const auto now = std::chrono::system_clock::now();
    // Unique per grant; a what-if question has no audit id, so the time serves.
    const int64_t serial =
        call.audit_id != 0
            ? call.audit_id
            : std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
    const std::string id = "allow-code-" + code + "-" + std::to_string(serial);
    auto item = AlwaysRuleItem(call, id);
    if (!item) {
      std::cerr << "togmal allow: cannot allow " << code << " always: " << item.error() << "\n";
      return kExitDataErr;
    }
    const std::string marker =
        "togmal allow " + code + " --always (" + store::FormatAuditTime(now) + ")";
    if (auto appended = rules::AppendUserRule(rules::UserRulesPath(), marker, *item); !appended) {
      std::cerr << "togmal allow: " << appended.error() << "\n";
      return kExitConfig;
    }
    auto granted = grants.Grant(call, store::GrantScope::kAlways, {}, id);
    if (!granted) {
      std::cerr << "togmal allow: " << granted.error() << "\n";
      return kExitFailure;
    }
    std::cout << "always allowing " << what << "\n  (rule " << id << " in "
              << rules::UserRulesPath().string() << "; `togmal allow --revoke " << code
              << "` removes it)\n";
    return kExitOk;
  }
  std::chrono::system_clock::time_point expires;
  store::GrantScope scope = store::GrantScope::kOnce;
  if (!options.for_duration.empty()) {
    auto duration = ParseDuration(options.for_duration);
    if (!duration) {
      std::cerr << "togmal allow: --for takes a duration such as 90s, 30m, 1h or 2d, not '"
                << options.for_duration << "'\n";
      return kExitUsage;
    }
    scope = store::GrantScope::kUntil;
    expires = std::chrono::system_clock::now() + *duration;
  }
  auto granted = grants.Grant(call, scope, expires);
  if (!granted) {
    std::cerr << "togmal allow: " << granted.error() << "\n";
    return kExitFailure;
  }
  switch (granted->outcome) {
    case store::GrantOutcome::kAlready:
      std::cout << "already allowed " << Covers(granted->grant) << ": " << what << "\n";
      return kExitOk;
    case store::GrantOutcome::kExtended:
      std::cout << "extended: allowing until " << granted->grant.expires_at << ": " << what << "\n";
      return kExitOk;
    case store::GrantOutcome::kNew:
      break;
  }
  if (scope == store::GrantScope::kOnce) {
    std::cout << "allowing once: " << what << "\n";
  } else {
    std::cout << "allowing until " << granted->grant.expires_at << ": " << what << "\n";
  }
  std::cout << "  (it was " << call.decision << ": " << util::Shorten(call.reason, 300) << ")\n";
  return kExitOk;
}

int Run(const AllowOptions& options) {
  const int modes = (options.once ? 1 : 0) + (!options.for_duration.empty() ? 1 : 0) +
                    (options.always ? 1 : 0) + (options.list ? 1 : 0) + (options.revoke ? 1 : 0);
  if (modes > 1) {
    std::cerr << "togmal allow: choose one of --once, --for, --always, --list, --revoke\n";
    return kExitUsage;
  }
  std::optional<std::string> code;
  if (!options.list) {
    code = store::NormalizeAllowCode(options.code);
    if (!code) {
      std::cerr << "togmal allow: give the four-character code from a deny or ask reason"
                << (options.code.empty() ? "" : " ('" + options.code + "' is not one)") << "\n";
      return kExitUsage;
    }
  }
  auto db = store::Database::Open(options.db.Resolve());
  if (!db) {
    std::cerr << "togmal: " << db.error() << "\n";
    return kExitCantCreat;
  }
  store::AllowGrants grants(*db);
  if (options.list) return List(grants, options.all);
  if (options.revoke) return Revoke(grants, *code);
  return Grant(grants, options, *code);
}

}  // namespace

Action DefineAllow(CLI::App& command) {
  auto options = std::make_shared<AllowOptions>();
  options->db = AddDatabaseOption(command);
  command.add_option("code", options->code, "The code at the end of a deny or ask reason");
  command.add_flag("--once", options->once, "Let that exact call through once (the default)");
  command.add_option("--for", options->for_duration,
                     "Let it through until the time is up: 90s, 30m, 1h, 2d");
  command.add_flag("--always", options->always,
                   "Write a user rule that always allows it (never a project rule)");
  command.add_flag("--list", options->list, "List the active grants");
  command.add_flag("--all", options->all, "With --list: also used, expired and revoked ones");
  command.add_flag("--revoke", options->revoke,
                   "Revoke the grants for CODE (and the rule --always wrote)");
  command.footer(
      "A grant covers the action the code names: the same tool, the same input fields that\n"
      "act (a command, a file and its content, a URL; not the agent's description of it)\n"
      "and the same working directory. Granting a code again says what is already granted,\n"
      "or extends a time grant. Run it in your own terminal; an agent asking to run it is\n"
      "denied.\n"
      "Examples:\n"
      "  togmal allow K7Q2              # once\n"
      "  togmal allow K7Q2 --for 1h\n"
      "  togmal allow K7Q2 --always\n"
      "  togmal allow --list\n"
      "  togmal allow --revoke K7Q2");
  return [options] { return Run(*options); };
}

}  // namespace togmal::cli
