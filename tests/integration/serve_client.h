#pragma once
// A scripted MCP client over a `togmal serve` child process.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "process.h"

namespace togmal::testing {

using json = nlohmann::json;

inline json ModernMeta(json capabilities = json::object()) {
  return {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
          {"io.modelcontextprotocol/clientCapabilities", std::move(capabilities)},
          {"io.modelcontextprotocol/clientInfo", {{"name", "scripted"}, {"version", "1"}}}};
}

class ServeClient {
 public:
  explicit ServeClient(std::vector<std::string> extra_args = {}, EnvChanges env = DefaultEnv())
      : child_(Args(std::move(extra_args)), env) {}

  static EnvChanges DefaultEnv() {
    return {{"TOGMAL_TEST_TOOLS", "1"}, {"TOGMAL_LOG", std::nullopt}};
  }

  void Send(const json& message) { ASSERT_TRUE(child_.Send(message.dump())); }

  /// Next stdout message; fails the test on timeout.
  json Next(std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    auto line = child_.ReadLine(timeout);
    if (!line) {
      ADD_FAILURE() << "no message from togmal serve; stderr:\n" << child_.Stderr();
      return json();
    }
    json message = json::parse(*line, nullptr, false);
    EXPECT_FALSE(message.is_discarded()) << *line;
    seen_.push_back(message);
    return message;
  }

  /// The response to `id`: one read earlier while waiting for another id, or
  /// the next with this id (a server answers in completion order). Every
  /// message read stays in seen().
  json ResponseTo(const json& id) {
    for (auto it = unclaimed_.begin(); it != unclaimed_.end(); ++it) {
      if ((*it)["id"] == id) {
        json message = std::move(*it);
        unclaimed_.erase(it);
        return message;
      }
    }
    for (int i = 0; i < 1000; ++i) {
      json message = Next();
      if (message.is_null()) return message;
      if (!message.is_object() || message.contains("method")) continue;
      if (message["id"] == id) return message;
      unclaimed_.push_back(std::move(message));
    }
    return json();
  }

  /// Reads until a message with this method.
  json UntilMethod(const std::string& method) {
    for (int i = 0; i < 1000; ++i) {
      json message = Next();
      if (message.is_null()) return message;
      if (message.is_object() && message.value("method", "") == method) return message;
    }
    return json();
  }

  json Call(const json& request) {
    Send(request);
    return ResponseTo(request["id"]);
  }

  json Initialize(const std::string& version, json capabilities = json::object()) {
    json response = Call({{"jsonrpc", "2.0"},
                          {"id", "init"},
                          {"method", "initialize"},
                          {"params",
                           {{"protocolVersion", version},
                            {"capabilities", std::move(capabilities)},
                            {"clientInfo", {{"name", "scripted"}, {"version", "1"}}}}}});
    Send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    return response;
  }

  ChildProcess& child() { return child_; }
  const std::vector<json>& seen() const { return seen_; }

 private:
  static std::vector<std::string> Args(std::vector<std::string> extra) {
    std::vector<std::string> args = {TogmalBinary(), "serve"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  ChildProcess child_;
  std::vector<json> seen_;
  std::vector<json> unclaimed_;  ///< responses read before anyone asked for them
};

inline json ToolCall(json id, const std::string& tool, json arguments, json meta = nullptr) {
  json params = {{"name", tool}, {"arguments", std::move(arguments)}};
  if (!meta.is_null()) params["_meta"] = std::move(meta);
  return {{"jsonrpc", "2.0"}, {"id", std::move(id)}, {"method", "tools/call"}, {"params", params}};
}

}  // namespace togmal::testing
