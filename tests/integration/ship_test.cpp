// Issue 22's end-to-end test of `togmal audit ship`: the built `togmal hook`
// decides a few calls into a temporary database, then `togmal audit ship`
// delivers every entry exactly once to (a) a local OTLP/HTTP receiver run by
// this test and (b) a real rsyslogd started by this test on a local TCP port,
// across several runs, including runs while the destination was down.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <re2/re2.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "otlp_receiver.h"
#include "process.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"

namespace togmal {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing::ProcessOutput;
using testing::RunProcess;
using testing::TogmalBinary;

// A secret the redaction knows (tests/integration/secrets_test.cpp); it must
// never leave the machine.
constexpr const char* kSecret = "ghp_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ01";

class ShipTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path();
    fs::create_directories(root_ / "proj");
    env_ = {{"TOGMAL_DB", (root_ / "togmal.db").string()},
            {"XDG_CONFIG_HOME", (root_ / "config").string()},
            {"XDG_DATA_HOME", (root_ / "data").string()},
            {"TOGMAL_LOG", std::nullopt},
            {"OTEL_EXPORTER_OTLP_ENDPOINT", std::nullopt},
            {"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", std::nullopt},
            {"OTEL_EXPORTER_OTLP_HEADERS", std::nullopt},
            {"OTEL_EXPORTER_OTLP_LOGS_HEADERS", std::nullopt}};
  }

  // One PreToolUse call through the built hook.
  void Hook(const std::string& command) {
    const json event = {{"session_id", "ship-session"},
                        {"transcript_path", (root_ / "t.jsonl").string()},
                        {"cwd", (root_ / "proj").string()},
                        {"permission_mode", "default"},
                        {"hook_event_name", "PreToolUse"},
                        {"tool_name", "Bash"},
                        {"tool_input", {{"command", command}}},
                        {"tool_use_id", "toolu_" + std::to_string(++calls_)}};
    auto result =
        RunProcess({TogmalBinary(), "hook"}, event.dump(), env_, std::chrono::seconds(60));
    ASSERT_EQ(result.exit_code, 0) << result.err;
  }

  void Decide() {
    Hook("ls -la");
    Hook("rm -rf /");
    Hook("git status");
    Hook("curl -H 'Authorization: token " + std::string(kSecret) + "' https://api.github.com/user");
    Hook("cat README.md");
  }

  ProcessOutput Ship(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), {TogmalBinary(), "audit", "ship"});
    return RunProcess(arguments, "", env_, std::chrono::seconds(120));
  }

  std::vector<store::AuditEntry> Audit() {
    auto db = store::Database::Open(root_ / "togmal.db");
    EXPECT_TRUE(db.ok());
    if (!db.ok()) return {};
    auto entries = store::AuditLog(*db).Tail(100000);
    EXPECT_TRUE(entries.ok());
    return entries.ok() ? *entries : std::vector<store::AuditEntry>{};
  }

  // 1..n, what every destination must have received once each, in order.
  std::vector<int64_t> AllIds() {
    std::vector<int64_t> ids;
    for (const auto& entry : Audit()) ids.push_back(entry.id);
    return ids;
  }

  testing::TempDir dir_;
  fs::path root_;
  testing::EnvChanges env_;
  int calls_ = 0;
};

std::string Attribute(const json& record, const std::string& key) {
  for (const json& attribute : record["attributes"]) {
    if (attribute["key"] != key) continue;
    const json& value = attribute["value"];
    return value.contains("intValue") ? value["intValue"].get<std::string>()
                                      : value["stringValue"].get<std::string>();
  }
  return "";
}

// A free local TCP port (bound, then released for the test's server).
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

bool Listening(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return ok;
}

TEST_F(ShipTest, OtlpReceiverGetsEveryEntryExactlyOnceAcrossRunsAndOutages) {
  Decide();
  const int port = FreePort();
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/v1/logs";
  std::vector<json> received;
  {
    testing::OtlpReceiver receiver(port);
    const ProcessOutput first = Ship({"--otlp", url, "--batch", "2"});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    EXPECT_NE(first.out.find("shipped 5 entries in 3 batches"), std::string::npos) << first.out;
    // Second run: nothing new, nothing sent again.
    const ProcessOutput second = Ship({"--otlp", url, "--batch", "2"});
    ASSERT_EQ(second.exit_code, 0) << second.err;
    EXPECT_NE(second.out.find("nothing new"), std::string::npos) << second.out;
    EXPECT_EQ(receiver.Requests(), 3);
    EXPECT_EQ(receiver.Problems(), std::vector<std::string>{});
    received = receiver.Records();
  }
  // The receiver is down: the run fails, says where it stopped, skips nothing.
  Hook("echo after-the-outage");
  Hook("rm -rf ~/.ssh");
  const ProcessOutput down = Ship({"--otlp", url, "--retries", "1", "--timeout-ms", "500"});
  EXPECT_NE(down.exit_code, 0);
  EXPECT_NE(down.err.find("otlp " + url), std::string::npos) << down.err;
  EXPECT_NE(down.err.find("at entry #6"), std::string::npos) << down.err;
  {
    testing::OtlpReceiver receiver(port);
    const ProcessOutput back = Ship({"--otlp", url});
    ASSERT_EQ(back.exit_code, 0) << back.err;
    EXPECT_EQ(receiver.Problems(), std::vector<std::string>{});
    for (const json& record : receiver.Records()) received.push_back(record);
  }

  // Every entry exactly once, in order, each chained to the one before it.
  std::vector<int64_t> seqs;
  std::string previous_hash(store::kGenesisHash);
  const std::vector<store::AuditEntry> audit = Audit();
  ASSERT_EQ(audit.size(), received.size());
  for (std::size_t i = 0; i < received.size(); ++i) {
    const json& record = received[i];
    seqs.push_back(std::stoll(Attribute(record, "seq")));
    EXPECT_EQ(Attribute(record, "prev_hash"), previous_hash) << "seq " << seqs.back();
    EXPECT_EQ(Attribute(record, "hash"), audit[i].hash);
    EXPECT_EQ(Attribute(record, "decision"), audit[i].decision);
    EXPECT_EQ(Attribute(record, "session"), "ship-session");
    EXPECT_EQ(Attribute(record, "project"), (root_ / "proj").string());
    EXPECT_EQ(record["body"]["stringValue"].get<std::string>().find(kSecret), std::string::npos)
        << "the secret left the machine: " << record.dump();
    previous_hash = Attribute(record, "hash");
  }
  EXPECT_EQ(seqs, AllIds());
  EXPECT_EQ(Attribute(received[1], "decision"), "deny");  // rm -rf /
  EXPECT_EQ(received[1]["severityNumber"], 13);
}

TEST_F(ShipTest, HttpsIsRefusedWithAClearMessage) {
  Decide();
  const ProcessOutput out = Ship({"--otlp", "https://collector.example.com/v1/logs"});
  EXPECT_NE(out.exit_code, 0);
  EXPECT_NE(out.err.find("https:// is not supported"), std::string::npos) << out.err;
}

TEST_F(ShipTest, OtlpEndpointAndHeadersFromTheEnvironment) {
  Decide();
  testing::OtlpReceiver receiver;
  env_["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://127.0.0.1:" + std::to_string(receiver.port());
  env_["OTEL_EXPORTER_OTLP_HEADERS"] = "X-Scope-OrgID=team%20a";
  const ProcessOutput out = Ship({});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(receiver.Records().size(), AllIds().size());
  EXPECT_NE(receiver.LastHead().find("x-scope-orgid: team a"), std::string::npos)
      << receiver.LastHead();
}

// `serve` with a destination in settings.yaml ships in the background, on
// its own, and stops with the server when stdin closes.
TEST_F(ShipTest, ServeShipsInTheBackgroundWhenSettingsNameADestination) {
  Decide();
  testing::OtlpReceiver receiver;
  fs::create_directories(root_ / "config/togmal");
  std::ofstream(root_ / "config/togmal/settings.yaml")
      << "ship:\n  otlp: http://127.0.0.1:" << receiver.port()
      << "/v1/logs\n  interval_seconds: 1\n";
  testing::ChildProcess serve({TogmalBinary(), "serve"}, env_);
  const std::size_t expected = AllIds().size();
  for (int i = 0; i < 100 && receiver.Records().size() < expected; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(receiver.Records().size(), expected) << serve.Stderr();
  EXPECT_EQ(receiver.Problems(), std::vector<std::string>{});
  const auto stop_started = std::chrono::steady_clock::now();
  serve.CloseStdin();
  EXPECT_EQ(serve.Wait(std::chrono::seconds(10)), 0) << serve.Stderr();
  EXPECT_LT(std::chrono::steady_clock::now() - stop_started, std::chrono::seconds(3))
      << "the shipping thread held serve's shutdown up";
  // The same cursor as `audit ship`'s: a run now has nothing new.
  const ProcessOutput after =
      Ship({"--otlp", "http://127.0.0.1:" + std::to_string(receiver.port()) + "/v1/logs"});
  EXPECT_EQ(after.exit_code, 0) << after.err;
  EXPECT_NE(after.out.find("nothing new"), std::string::npos) << after.out;
}

// A real rsyslogd (Debian's rsyslog, installed by scripts/dev), run by the
// test in the foreground with its own configuration, pid file and port.
class Rsyslog {
 public:
  Rsyslog(const fs::path& dir, int port) : output_(dir / "received.log") {
    const fs::path conf = dir / "rsyslog.conf";
    fs::create_directories(dir / "work");
    std::ofstream(conf) << "global(workDirectory=\"" << (dir / "work").string() << "\")\n"
                        << "module(load=\"imtcp\")\n"
                        << "input(type=\"imtcp\" address=\"127.0.0.1\" port=\"" << port
                        << "\")\n"
                        // What rsyslog parsed out of the RFC 5424 header, then
                        // the message exactly as it arrived.
                        << "template(name=\"raw\" type=\"string\" "
                           "string=\"%app-name% %msgid% %rawmsg%\\n\")\n"
                        << "action(type=\"omfile\" file=\"" << output_.string()
                        << "\" template=\"raw\")\n";
    child_ = std::make_unique<testing::ChildProcess>(std::vector<std::string>{
        kRsyslogd, "-n", "-f", conf.string(), "-i", (dir / "rsyslogd.pid").string()});
    for (int i = 0; i < 200 && !Listening(port); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ~Rsyslog() {
    child_->Kill(SIGTERM);
    child_->Wait(std::chrono::seconds(10));
  }
  std::string Stderr() { return child_->Stderr(); }

  // The lines written so far, once `count` are there (or after a few seconds).
  std::vector<std::string> Lines(std::size_t count) {
    std::vector<std::string> lines;
    for (int i = 0; i < 100; ++i) {
      lines.clear();
      std::ifstream file(output_);
      for (std::string line; std::getline(file, line);) lines.push_back(line);
      if (lines.size() >= count) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return lines;
  }

  static constexpr const char* kRsyslogd = "/usr/sbin/rsyslogd";

 private:
  fs::path output_;
  std::unique_ptr<testing::ChildProcess> child_;
};

TEST_F(ShipTest, RealRsyslogGetsEveryEntryOnceAsRfc5424) {
  ASSERT_TRUE(fs::exists(Rsyslog::kRsyslogd))
      << "rsyslogd is not installed: run scripts/dev (it installs Debian's rsyslog)";
  Decide();
  const int port = FreePort();
  const std::string target = "tcp://127.0.0.1:" + std::to_string(port);
  // rsyslog is not running yet: a clear failure, nothing recorded as shipped.
  const ProcessOutput down = Ship({"--syslog", target, "--retries", "0"});
  EXPECT_NE(down.exit_code, 0);
  EXPECT_NE(down.err.find("syslog " + target), std::string::npos) << down.err;
  EXPECT_NE(down.err.find("at entry #1"), std::string::npos) << down.err;

  Rsyslog rsyslog(root_ / "rsyslog", port);
  ASSERT_TRUE(Listening(port)) << "rsyslogd did not start: " << rsyslog.Stderr();
  const ProcessOutput first = Ship({"--syslog", target, "--batch", "2"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const ProcessOutput second = Ship({"--syslog", target});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find("nothing new"), std::string::npos) << second.out;
  Hook("rm -rf ~/.ssh");
  const ProcessOutput third = Ship({"--syslog", target});
  ASSERT_EQ(third.exit_code, 0) << third.err;

  const std::vector<store::AuditEntry> audit = Audit();
  const std::vector<std::string> lines = rsyslog.Lines(audit.size());
  ASSERT_EQ(lines.size(), audit.size()) << rsyslog.Stderr();
  // "togmal MSGID <PRI>1 TIME HOST togmal PID MSGID [togmal@32473 ... seq="N" ...] MSG"
  // RE2, not std::regex: GCC 12's <regex> trips -Wmaybe-uninitialized in the ASan build.
  const RE2 shape(
      R"re(^togmal (\S+) <(\d+)>1 \S+ \S+ togmal \d+ (\S+) \[togmal@32473 [^\]]*seq="(\d+)" )re"
      R"re(prev_hash="([0-9a-f]{64})" hash="([0-9a-f]{64})"\] (.*)$)re");
  ASSERT_TRUE(shape.ok()) << shape.error();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string msgid, pri, msgid_field, seq, prev_hash, hash, message;
    ASSERT_TRUE(RE2::PartialMatch(lines[i], shape, &msgid, &pri, &msgid_field, &seq, &prev_hash,
                                  &hash, &message))
        << lines[i];
    const store::AuditEntry& entry = audit[i];
    EXPECT_EQ(msgid, entry.decision) << "rsyslog parsed the MSGID: " << lines[i];
    EXPECT_EQ(msgid_field, entry.decision);
    EXPECT_EQ(std::stoll(seq), entry.id) << "in order, each once";
    EXPECT_EQ(prev_hash, entry.prev_hash);
    EXPECT_EQ(hash, entry.hash);
    const int severity = std::stoi(pri) % 8;
    EXPECT_EQ(severity, entry.decision == "deny" ? 4 : entry.decision == "ask" ? 5 : 6);
    EXPECT_EQ(lines[i].find(kSecret), std::string::npos) << "the secret left the machine";
    EXPECT_NE(lines[i].find("project=\"" + (root_ / "proj").string() + "\""), std::string::npos);
  }
}

}  // namespace
}  // namespace togmal
