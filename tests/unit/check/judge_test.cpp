// check::Judge: the decision every front end shares, its recording rules, and
// the policy it loads (broken files never loosen it).
#include "togmal/check/judge.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "process.h"
#include "scoped_env.h"
#include "togmal/rules/rule_loader.h"
#include "togmal/store/audit_log.h"

namespace togmal::check {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

void WriteFile(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

policy::ToolCall Bash(std::string command, std::string cwd = "/home/u/p") {
  policy::ToolCall call;
  call.tool_name = "Bash";
  call.tool_input = {{"command", std::move(command)}};
  call.cwd = std::move(cwd);
  return call;
}

Policy BuiltinPolicy() {
  auto policy = LoadPolicy("", {}, fs::path("/nonexistent/rules.yaml"));
  EXPECT_TRUE(policy.ok());
  return policy.ok() ? *policy : Policy{};
}

// Collects entries in memory.
struct MemorySink {
  std::vector<store::AuditEntry> entries;
  AuditSink Sink() {
    return [this](store::AuditEntry entry) -> Result<int64_t> {
      entries.push_back(std::move(entry));
      return static_cast<int64_t>(entries.size());
    };
  }
};

TEST(Judge, RecordsEachDecisionWithItsId) {
  MemorySink memory;
  Judge judge({.via = "hook", .audit = memory.Sink()});
  Judgement judgement = judge.Decide(Bash("ls"), BuiltinPolicy());
  EXPECT_EQ(judgement.decision.permission, rules::Permission::kAllow);
  EXPECT_EQ(judgement.audit_id, 1);
  ASSERT_EQ(memory.entries.size(), 1u);
  EXPECT_EQ(memory.entries[0].decision, "allow");
  EXPECT_EQ(memory.entries[0].detail["via"], "hook");
  EXPECT_EQ(memory.entries[0].session, "hook");  // no session id in the call
}

// Stopping the guard is denied by a built-in rule, however the command names
// it; a command that only uses togmal, or stops something else, is not.
TEST(Judge, StoppingTheGuardIsDenied) {
  MemorySink memory;
  Judge judge({.via = "hook", .audit = memory.Sink()});
  for (const char* command :
       {"pkill -f togmal", "kill -9 $(pgrep togmal)", "killall togmal",
        "systemctl --user stop togmal-ship.timer", "sleep 1 && pkill -x togmal",
        "systemctl --user disable --now togmal-ship.timer", "service togmal-ship stop",
        "launchctl bootout gui/501/com.togmal.ship"}) {
    const Judgement judgement = judge.Decide(Bash(command), BuiltinPolicy());
    EXPECT_EQ(judgement.decision.permission, rules::Permission::kDeny) << command;
    EXPECT_EQ(judgement.decision.rule_id, "deny-stop-guard") << command;
  }
  for (const char* command :
       {"togmal check ls", "pkill -f webpack", "togmal audit tail",
        "systemctl --user status togmal-ship.timer",
        "systemctl --user list-timers togmal-ship.timer", "launchctl list | grep togmal"}) {
    const Judgement judgement = judge.Decide(Bash(command), BuiltinPolicy());
    EXPECT_NE(judgement.decision.rule_id, "deny-stop-guard") << command;
  }
}

TEST(Judge, AnUnrecordedDecisionIsNeverAnAllow) {
  Judge failing({.via = "mcp",
                 .audit = [](store::AuditEntry) -> Result<int64_t> { return Fail("disk full"); }});
  Judgement judgement = failing.Decide(Bash("ls"), BuiltinPolicy());
  EXPECT_EQ(judgement.decision.permission, rules::Permission::kAsk);
  EXPECT_NE(judgement.decision.reason.find("disk full"), std::string::npos);
  EXPECT_FALSE(judgement.audit_id.has_value());

  Judge unconfigured({.via = "mcp"});
  EXPECT_EQ(unconfigured.Decide(Bash("ls"), BuiltinPolicy()).decision.permission,
            rules::Permission::kAsk);
  // A deny stays a deny, with the failure noted.
  Judgement deny = failing.Decide(Bash("rm -rf /"), BuiltinPolicy());
  EXPECT_EQ(deny.decision.permission, rules::Permission::kDeny);
  EXPECT_NE(deny.decision.reason.find("not audited"), std::string::npos);
}

TEST(Judge, WhatIfQuestionsAreNeitherRecordedNorTightened) {
  Judge judge({.via = "cli", .recording = Recording::kWhatIf});
  Judgement judgement = judge.Decide(Bash("ls"), BuiltinPolicy());
  EXPECT_EQ(judgement.decision.permission, rules::Permission::kAllow);
  EXPECT_FALSE(judgement.audit_id.has_value());
}

TEST(Judge, SampleIsAskedWithoutAResolverAndPendingWhileTheClientIsAsked) {
  auto set = std::make_shared<rules::RuleSet>();
  auto file = rules::ParseRuleFile(
      "rules:\n  - {id: review, conditions: {tool_name: Bash}, action: SAMPLE, "
      "sampling_guidance: Look closely.}\n",
      "r.yaml", rules::Layer::kUser, true);
  ASSERT_TRUE(file.ok()) << file.error();
  Policy policy{
      .rules = std::make_shared<const rules::RuleSet>(rules::CombineRuleFiles({std::move(*file)})),
      .settings = {},
      .broken_settings = {}};
  MemorySink memory;
  Judgement asked = Judge({.via = "hook", .audit = memory.Sink()}).Decide(Bash("ls"), policy);
  EXPECT_EQ(asked.decision.permission, rules::Permission::kAsk);
  EXPECT_NE(asked.decision.reason.find("Look closely."), std::string::npos);
  EXPECT_EQ(memory.entries.size(), 1u);

  Judgement pending =
      Judge({.via = "mcp",
             .audit = memory.Sink(),
             .resolve_sample = [](const policy::ToolCall&, rules::Decision&) { return false; }})
          .Decide(Bash("ls"), policy);
  EXPECT_TRUE(pending.pending);
  EXPECT_EQ(memory.entries.size(), 1u) << "nothing is recorded before the verdict";
}

TEST(Judge, RefusalsAreRecordedAsErrors) {
  MemorySink memory;
  rules::DecisionSettings settings;
  settings.on_error = rules::Permission::kDeny;
  Judgement judgement =
      Judge({.via = "hook", .audit = memory.Sink()}).Refuse({}, settings, "bad input");
  EXPECT_EQ(judgement.decision.permission, rules::Permission::kDeny);
  ASSERT_EQ(memory.entries.size(), 1u);
  EXPECT_EQ(memory.entries[0].source, "error");
}

class PolicyFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path();
    fs::create_directories(root_ / "repo/.git");
    fs::create_directories(root_ / "repo/sub/deeper");
  }
  Policy Load(const fs::path& cwd) {
    auto policy = LoadPolicy(cwd, {}, root_ / "config/rules.yaml");
    EXPECT_TRUE(policy.ok());
    return policy.ok() ? *policy : Policy{};
  }
  rules::Permission Decision(const fs::path& cwd, const std::string& command) {
    return Judge({.via = "cli", .recording = Recording::kWhatIf})
        .Decide(Bash(command, cwd.string()), Load(cwd))
        .decision.permission;
  }
  togmal::testing::TempDir dir_;
  fs::path root_;
};

TEST_F(PolicyFiles, EveryProjectFileUpToTheRepositoryRootApplies) {
  WriteFile(root_ / "repo/.togmal/rules.yaml",
            "rules:\n  - {id: no-make, conditions: {command: '^make'}, action: DENY}\n");
  WriteFile(root_ / "repo/sub/.togmal/rules.yaml", "rules: []\n");  // cannot drop the parent's
  WriteFile(root_ / "repo/sub/deeper/.togmal/rules.yaml",
            "rules:\n  - {id: ask-ls, conditions: {command: '^ls'}, action: ASK}\n");
  EXPECT_EQ(Decision(root_ / "repo/sub/deeper", "make"), rules::Permission::kDeny);
  EXPECT_EQ(Decision(root_ / "repo/sub/deeper", "ls"), rules::Permission::kAsk);
  EXPECT_EQ(Decision(root_ / "repo/sub", "ls"), rules::Permission::kAllow);
  // Above the repository root nothing is read.
  WriteFile(root_ / ".togmal/rules.yaml",
            "rules:\n  - {id: outer, conditions: {command: '^ls'}, action: DENY}\n");
  EXPECT_EQ(Decision(root_ / "repo/sub", "ls"), rules::Permission::kAllow);
}

struct BrokenFile {
  const char* name;
  const char* text;
};

class BrokenProjectFiles : public PolicyFiles, public ::testing::WithParamInterface<BrokenFile> {};

TEST_P(BrokenProjectFiles, AreLeftOutAndStopAutoApprovalInTheirProject) {
  WriteFile(root_ / "config/rules.yaml",
            "rules:\n  - {id: user-no-make, conditions: {command: '^make'}, action: DENY}\n");
  WriteFile(root_ / "repo/.togmal/rules.yaml", GetParam().text);
  Policy policy = Load(root_ / "repo");
  ASSERT_EQ(policy.rules->ignored.size(), 1u) << GetParam().name;
  EXPECT_NE(policy.rules->ignored[0].find("rules.yaml"), std::string::npos);
  EXPECT_EQ(Decision(root_ / "repo", "rm -rf /"), rules::Permission::kDeny);
  EXPECT_EQ(Decision(root_ / "repo", "make"), rules::Permission::kDeny);
  EXPECT_EQ(Decision(root_ / "repo", "ls"), rules::Permission::kAsk)
      << "the broken file may have denied it";
  EXPECT_EQ(Decision(root_, "ls"), rules::Permission::kAllow) << "outside its project";
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BrokenProjectFiles,
    ::testing::Values(
        BrokenFile{"syntax", "rules:\n  - {id: x, action: DENY\n"},
        BrokenFile{"bad regex",
                   "rules:\n  - {id: x, conditions: {command: '(unclosed'}, action: DENY}\n"},
        BrokenFile{"misspelt action", "rules:\n  - {id: x, conditions: {}, action: ALOW}\n"},
        BrokenFile{"duplicate key",
                   "rules:\n  - {id: x, conditions: {}, action: ASK, action: DENY}\n"},
        BrokenFile{
            "alias bomb",
            "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
            "c: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c]\n"
            "e: &e [*d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e]\n"
            "g: &g [*f, *f, *f, *f, *f, *f, *f, *f]\nrules: [*g]\n"}),
    [](const auto& case_info) {
      std::string name = case_info.param.name;
      for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

TEST_F(PolicyFiles, AProjectFileThatIsNotARegularFileIsLeftOutWithoutWaiting) {
  fs::create_directories(root_ / "repo/.togmal");
  ASSERT_EQ(::mkfifo((root_ / "repo/.togmal/rules.yaml").c_str(), 0600), 0);
  Policy policy = Load(root_ / "repo");
  ASSERT_EQ(policy.rules->ignored.size(), 1u);
  EXPECT_NE(policy.rules->ignored[0].find("not a regular file"), std::string::npos);
  EXPECT_EQ(Decision(root_ / "repo", "rm -rf /"), rules::Permission::kDeny);
}

TEST_F(PolicyFiles, ABrokenUserFileKeepsTheBuiltinPolicyAndStopsAutoApproval) {
  WriteFile(root_ / "config/rules.yaml", "rules:\n  - {id: x, action: MAYBE}\n");
  Policy policy = Load(root_ / "repo");
  ASSERT_EQ(policy.rules->ignored.size(), 1u);
  EXPECT_NE(policy.rules->ignored[0].find("rules.yaml:2"), std::string::npos)
      << policy.rules->ignored[0];
  EXPECT_EQ(Decision(root_ / "repo", "rm -rf /"), rules::Permission::kDeny);
  EXPECT_EQ(Decision(root_ / "repo", "ls"), rules::Permission::kAsk)
      << "the broken file may have denied it";
  // The decision records what was left out.
  MemorySink memory;
  Judge({.via = "hook", .audit = memory.Sink()})
      .Decide(Bash("ls", (root_ / "repo").string()), policy);
  ASSERT_EQ(memory.entries.size(), 1u);
  EXPECT_NE(memory.entries[0].detail["config_ignored"].dump().find("rules.yaml:2"),
            std::string::npos);
}

// A broken settings file: whatever would have been allowed or left to the
// host asks, naming the file; asks and denies stand.
TEST(Judge, BrokenSettingsStopAutoApprovalButNotDenials) {
  Policy policy = BuiltinPolicy();
  const Judge judge({.via = "cli", .recording = Recording::kWhatIf});
  ASSERT_EQ(judge.Decide(Bash("ls -la"), policy).decision.permission, rules::Permission::kAllow);
  policy::ToolCall other_server;
  other_server.tool_name = "mcp__github__create_pull_request";
  other_server.tool_input = {{"title", "t"}};
  ASSERT_EQ(judge.Decide(other_server, policy).decision.permission, rules::Permission::kPass);

  policy.broken_settings = {"/home/u/.config/togmal/settings.yaml:3: bad indentation"};
  const rules::Decision listing = judge.Decide(Bash("ls -la"), policy).decision;
  EXPECT_EQ(listing.permission, rules::Permission::kAsk);
  EXPECT_NE(listing.reason.find("settings.yaml:3: bad indentation"), std::string::npos)
      << listing.reason;
  EXPECT_TRUE(listing.notice.empty());
  EXPECT_EQ(judge.Decide(other_server, policy).decision.permission, rules::Permission::kAsk);
  const rules::Decision removal = judge.Decide(Bash("rm -rf /"), policy).decision;
  EXPECT_EQ(removal.permission, rules::Permission::kDeny);
  EXPECT_EQ(removal.reason.find("settings.yaml"), std::string::npos) << removal.reason;
}

TEST(ClaudeHookAnswer, CarriesTheDecisionInsideHookSpecificOutput) {
  rules::Decision decision;
  decision.permission = rules::Permission::kAllow;
  decision.reason = "togmal L1: fine";
  decision.notice = "togmal L1: fine";
  json answer = ClaudeHookAnswer(decision);
  EXPECT_EQ(answer["hookSpecificOutput"]["hookEventName"], "PreToolUse");
  EXPECT_EQ(answer["hookSpecificOutput"]["permissionDecision"], "allow");
  EXPECT_EQ(answer["systemMessage"], "togmal L1: fine");
}

// A deny or ask names its allow code; a grant for exactly that call lets it
// through, and the audit entry says which grant did.
TEST(Judge, DenyAndAskEndWithTheAllowCodeAndAGrantLetsThatCallThrough) {
  const policy::ToolCall call = Bash("rm -rf ~/project", "/home/u/p");
  const std::string fingerprint = store::CallFingerprint(call.tool_name, call.tool_input, call.cwd);
  const std::string code = store::AllowCode(fingerprint);
  MemorySink memory;
  Judgement denied = Judge({.via = "hook", .audit = memory.Sink()}).Decide(call, BuiltinPolicy());
  EXPECT_EQ(denied.decision.permission, rules::Permission::kDeny);
  const std::string tail = " (togmal allow " + code + ")";
  ASSERT_GE(denied.decision.reason.size(), tail.size());
  EXPECT_EQ(denied.decision.reason.substr(denied.decision.reason.size() - tail.size()), tail);
  ASSERT_EQ(memory.entries.size(), 1u);
  EXPECT_EQ(memory.entries[0].detail["allow_code"], code);
  EXPECT_EQ(memory.entries[0].detail["fingerprint"], fingerprint);

  // An allow carries no code.
  Judgement allowed =
      Judge({.via = "hook", .audit = memory.Sink()}).Decide(Bash("ls"), BuiltinPolicy());
  EXPECT_EQ(allowed.decision.reason.find("togmal allow"), std::string::npos);
  EXPECT_FALSE(memory.entries.back().detail.contains("allow_code"));

  std::vector<std::pair<std::string, bool>> lookups;
  GrantLookup grants = [&](std::string_view print,
                           bool consume) -> Result<std::optional<store::AllowGrant>> {
    lookups.emplace_back(std::string(print), consume);
    if (print != fingerprint) return std::optional<store::AllowGrant>();
    store::AllowGrant grant;
    grant.id = 7;
    grant.code = code;
    grant.scope = store::GrantScope::kOnce;
    grant.uses = 1;
    return std::optional<store::AllowGrant>(grant);
  };
  Judgement let_through = Judge({.via = "hook", .audit = memory.Sink(), .grants = grants})
                              .Decide(call, BuiltinPolicy());
  EXPECT_EQ(let_through.decision.permission, rules::Permission::kAllow);
  EXPECT_NE(let_through.decision.notice.find("togmal allow " + code), std::string::npos);
  EXPECT_EQ(memory.entries.back().decision, "allow");
  EXPECT_EQ(memory.entries.back().detail["allowed_by"]["grant_id"], 7);
  ASSERT_EQ(lookups.size(), 1u);
  EXPECT_TRUE(lookups[0].second);  // a real call spends a once grant

  // A what-if question only peeks; another call is not let through; an
  // allowed call never looks.
  Judge what_if({.via = "cli", .recording = Recording::kWhatIf, .grants = grants});
  EXPECT_EQ(what_if.Decide(call, BuiltinPolicy()).decision.permission, rules::Permission::kAllow);
  EXPECT_FALSE(lookups.back().second);
  EXPECT_EQ(
      what_if.Decide(Bash("rm -rf ~/other", "/home/u/p"), BuiltinPolicy()).decision.permission,
      rules::Permission::kDeny);
  const std::size_t looked = lookups.size();
  what_if.Decide(Bash("ls"), BuiltinPolicy());
  EXPECT_EQ(lookups.size(), looked);

  // A lookup that fails leaves the policy's decision.
  Judge broken({.via = "hook",
                .audit = memory.Sink(),
                .grants = [](std::string_view, bool) -> Result<std::optional<store::AllowGrant>> {
                  return Fail("database is locked");
                }});
  EXPECT_EQ(broken.Decide(call, BuiltinPolicy()).decision.permission, rules::Permission::kDeny);
}

// The same command, described two ways by the agent, is one action: one code,
// and a grant for it lets both wordings through.
TEST(Judge, OneCodeForOneActionHoweverTheAgentDescribesIt) {
  policy::ToolCall first = Bash("rm -rf ~/project");
  first.tool_input["description"] = "Remove the old project";
  policy::ToolCall second = Bash("rm -rf ~/project");
  second.tool_input["description"] = "Clean up the project folder";
  second.tool_input["timeout"] = 120000;
  Judge judge({.via = "cli", .recording = Recording::kWhatIf});
  Judgement one = judge.Decide(first, BuiltinPolicy());
  Judgement two = judge.Decide(second, BuiltinPolicy());
  ASSERT_TRUE(one.allow_code && two.allow_code);
  EXPECT_EQ(one.allow_code->code, two.allow_code->code);
  EXPECT_EQ(one.allow_code->fingerprint, two.allow_code->fingerprint);
  Judgement other = judge.Decide(Bash("rm -rf ~/projects"), BuiltinPolicy());
  ASSERT_TRUE(other.allow_code);
  EXPECT_NE(other.allow_code->fingerprint, one.allow_code->fingerprint);

  const std::string granted = one.allow_code->fingerprint;
  GrantLookup grants = [&](std::string_view print,
                           bool) -> Result<std::optional<store::AllowGrant>> {
    if (print != granted) return std::optional<store::AllowGrant>();
    store::AllowGrant grant;
    grant.id = 3;
    grant.scope = store::GrantScope::kUntil;
    grant.expires_at = "2999-01-01T00:00:00.000000Z";
    return std::optional<store::AllowGrant>(grant);
  };
  MemorySink memory;
  Judge hook({.via = "hook", .audit = memory.Sink(), .grants = grants});
  EXPECT_EQ(hook.Decide(first, BuiltinPolicy()).decision.permission, rules::Permission::kAllow);
  EXPECT_EQ(hook.Decide(second, BuiltinPolicy()).decision.permission, rules::Permission::kAllow);
  EXPECT_EQ(hook.Decide(Bash("rm -rf ~/projects"), BuiltinPolicy()).decision.permission,
            rules::Permission::kDeny);
}

}  // namespace
}  // namespace togmal::check

namespace togmal::check {
namespace {

// L2 is `pass` where the host has a permission prompt of its own that the
// person's rules and modes drive; where it would not ask (bypassPermissions,
// dontAsk, a host without a gate) togmal asks, and records what the host got.
TEST(Judge, PassLeavesTheCallToTheHostsGateAndAsksWhereThereIsNone) {
  struct ModeCase {
    const char* mode;
    bool host_has_gate;
    rules::Permission expected;
  };
  for (const ModeCase& mode : {ModeCase{"", true, rules::Permission::kPass},
                               ModeCase{"default", true, rules::Permission::kPass},
                               ModeCase{"acceptEdits", true, rules::Permission::kPass},
                               ModeCase{"plan", true, rules::Permission::kPass},
                               ModeCase{"auto", true, rules::Permission::kPass},
                               ModeCase{"bypassPermissions", true, rules::Permission::kAsk},
                               ModeCase{"dontAsk", true, rules::Permission::kAsk},
                               ModeCase{"default", false, rules::Permission::kAsk}}) {
    policy::ToolCall call = Bash("npm install left-pad");
    call.permission_mode = mode.mode;
    call.host_has_gate = mode.host_has_gate;
    EXPECT_EQ(HostGateApplies(call), mode.expected == rules::Permission::kPass) << mode.mode;
    MemorySink memory;
    Judgement judgement =
        Judge({.via = "hook", .audit = memory.Sink()}).Decide(call, BuiltinPolicy());
    EXPECT_EQ(judgement.decision.level, policy::Level::kL2) << judgement.decision.reason;
    EXPECT_EQ(judgement.decision.permission, mode.expected) << mode.mode;
    ASSERT_EQ(memory.entries.size(), 1u);
    EXPECT_EQ(memory.entries[0].decision, rules::PermissionName(mode.expected)) << mode.mode;
    if (mode.expected == rules::Permission::kAsk) {
      EXPECT_NE(judgement.decision.reason.find("asking:"), std::string::npos)
          << judgement.decision.reason;
    }
  }
  // Allow and deny do not depend on the mode.
  policy::ToolCall read = Bash("ls -la");
  read.permission_mode = "bypassPermissions";
  EXPECT_EQ(Judge({.via = "cli", .recording = Recording::kWhatIf})
                .Decide(read, BuiltinPolicy())
                .decision.permission,
            rules::Permission::kAllow);
  policy::ToolCall wipe = Bash("rm -rf /");
  wipe.permission_mode = "default";
  EXPECT_EQ(Judge({.via = "cli", .recording = Recording::kWhatIf})
                .Decide(wipe, BuiltinPolicy())
                .decision.permission,
            rules::Permission::kDeny);
}

TEST(ClaudeHookAnswer, PassIsNoDecisionAtAll) {
  rules::Decision decision;
  decision.permission = rules::Permission::kPass;
  decision.reason = "togmal L2: unknown";
  EXPECT_EQ(ClaudeHookAnswer(decision), json::object());
}

TEST(Judge, TheStrictProfileJudgesWithTheSeedsTable) {
  auto layer = util::ParseSettingsLayer("profile: strict\n", "s.yaml");
  ASSERT_TRUE(layer.ok());
  auto policy = LoadPolicy("", util::SettingsLayers{.layers = {*layer}, .ignored = {}},
                           fs::path("/nonexistent/rules.yaml"));
  ASSERT_TRUE(policy.ok());
  const Judge judge({.via = "cli", .recording = Recording::kWhatIf});
  const Policy standard = BuiltinPolicy();
  EXPECT_EQ(judge.Decide(Bash("mkdir -p src/x"), standard).decision.permission,
            rules::Permission::kAllow);
  const rules::Decision strict = judge.Decide(Bash("mkdir -p src/x"), *policy).decision;
  EXPECT_EQ(strict.level, policy::Level::kL2);
  EXPECT_EQ(strict.permission, rules::Permission::kAsk)
      << "strict asks even where the host has a gate";
  EXPECT_EQ(judge.Decide(Bash("curl -s http://localhost:3000/health"), *policy).decision.permission,
            rules::Permission::kDeny);
  EXPECT_EQ(
      judge.Decide(Bash("curl -s http://localhost:3000/health"), standard).decision.permission,
      rules::Permission::kAllow);
}

}  // namespace
}  // namespace togmal::check

namespace togmal::check {
namespace {

TEST(JudgeWhatIf, ShowsTheHooksDecisionOrTheSampleAndRecordsNothing) {
  togmal::testing::TempDir home;
  const togmal::testing::ScopedEnv config("XDG_CONFIG_HOME", home.path().c_str());
  const togmal::testing::ScopedEnv data("XDG_DATA_HOME", home.path().c_str());
  WriteFile(fs::path(home.path()) / "togmal" / "rules.yaml",
            "rules:\n  - {id: review, conditions: {tool_name: Bash}, action: SAMPLE, "
            "sampling_guidance: Look closely.}\n");
  std::vector<std::string> broken;
  auto asked = JudgeWhatIf(Bash("ls", home.path()), SampleShown::kAsTheHookDecides, broken);
  ASSERT_TRUE(asked.ok()) << asked.error();
  EXPECT_EQ(asked->decision.permission, rules::Permission::kAsk);
  EXPECT_FALSE(asked->audit_id.has_value());
  EXPECT_TRUE(broken.empty());
  auto shown = JudgeWhatIf(Bash("ls", home.path()), SampleShown::kAsSample, broken);
  ASSERT_TRUE(shown.ok()) << shown.error();
  EXPECT_EQ(shown->decision.action, rules::Action::kSample);
  EXPECT_FALSE(fs::exists(fs::path(home.path()) / "togmal" / "togmal.db"));

  WriteFile(fs::path(home.path()) / "togmal" / "rules.yaml", "rules: [\n");
  auto unsure = JudgeWhatIf(Bash("ls", home.path()), SampleShown::kAsTheHookDecides, broken);
  ASSERT_TRUE(unsure.ok()) << unsure.error();
  ASSERT_EQ(broken.size(), 1u);
  EXPECT_NE(broken[0].find("rules.yaml"), std::string::npos) << broken[0];
  EXPECT_NE(unsure->decision.permission, rules::Permission::kAllow);
}

}  // namespace
}  // namespace togmal::check
