#pragma once
// Drives an mcp::Server through a MemoryTransport on a background thread, the
// way a client would: send messages, await the reply to an id.

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "memory_transport.h"
#include "togmal/mcp/server.h"
#include "togmal/mcp/tool.h"
#include "togmal/mcp/transport.h"

namespace togmal::mcp::testing {

using json = nlohmann::json;

inline constexpr const char* kModern = "2026-07-28";

/// How long a test waits for a message before failing. Generous: it only
/// matters when something is wrong, and CI runs the sanitizer build on two
/// busy cores where a reply can take seconds.
inline constexpr int kWaitMs = 30000;

/// params._meta of a modern request.
inline json ModernMeta(json capabilities = json::object()) {
  return {{"io.modelcontextprotocol/protocolVersion", kModern},
          {"io.modelcontextprotocol/clientCapabilities", std::move(capabilities)},
          {"io.modelcontextprotocol/clientInfo", {{"name", "unit-test"}, {"version", "1"}}}};
}

/// A modern request: `params` plus the required _meta.
inline json ModernRequest(json id, const std::string& method, json params = json::object(),
                          json capabilities = json::object()) {
  params["_meta"] = ModernMeta(std::move(capabilities));
  return {{"jsonrpc", "2.0"}, {"id", std::move(id)}, {"method", method}, {"params", params}};
}

inline json Request(json id, const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", std::move(id)}, {"method", method}, {"params", params}};
}

inline json Notification(const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", params}};
}

inline json InitializeRequest(json id, const std::string& version,
                              json capabilities = json::object()) {
  return Request(std::move(id), "initialize",
                 {{"protocolVersion", version},
                  {"capabilities", std::move(capabilities)},
                  {"clientInfo", {{"name", "legacy-test"}, {"version", "1"}}}});
}

class ServerHarness {
 public:
  ServerHarness(const ToolRegistry& tools, const ResourceRegistry& resources,
                ServerOptions options = DefaultOptions())
      : server_(transport_, tools, resources, std::move(options)),
        thread_([this] { exit_code_ = server_.Run(); }) {}

  ~ServerHarness() { Finish(); }

  static ServerOptions DefaultOptions() {
    ServerOptions options;
    options.info = {"togmal-test", "9.9.9", ""};
    options.ask_timeout = std::chrono::milliseconds(kWaitMs);
    return options;
  }

  void Send(const json& message) { transport_.Push(message.dump()); }
  void SendRaw(std::string line) { transport_.Push(std::move(line)); }
  void SendOversize() { transport_.PushOversize(); }

  /// Sent message number `index` (0-based), waiting for it.
  std::optional<json> At(std::size_t index, int timeout_ms = kWaitMs) {
    if (!transport_.WaitForSent(index + 1, timeout_ms)) return std::nullopt;
    return json::parse(transport_.Sent()[index]);
  }

  /// The response (result or error) to `id`, waiting for it.
  json ResponseTo(const json& id, int timeout_ms = kWaitMs) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (std::size_t seen = 0;;) {
      std::vector<std::string> sent = transport_.Sent();
      for (; seen < sent.size(); ++seen) {
        json message = json::parse(sent[seen]);
        if (message.is_object() && !message.contains("method") && message.contains("id") &&
            message["id"] == id) {
          return message;
        }
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !transport_.WaitForSent(seen + 1, static_cast<int>(left.count()))) {
        ADD_FAILURE() << "no response to " << id.dump() << "; sent so far:\n" << Dump();
        return json();
      }
    }
  }

  /// Sends a request and returns its response.
  json Call(const json& request) {
    Send(request);
    return ResponseTo(request["id"]);
  }

  /// First sent message with this method (server→client request or
  /// notification), waiting for it.
  json MessageWithMethod(const std::string& method, int timeout_ms = kWaitMs) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (std::size_t seen = 0;;) {
      std::vector<std::string> sent = transport_.Sent();
      for (; seen < sent.size(); ++seen) {
        json message = json::parse(sent[seen]);
        if (message.is_object() && message.value("method", "") == method) return message;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !transport_.WaitForSent(seen + 1, static_cast<int>(left.count()))) {
        ADD_FAILURE() << "no message with method " << method << "; sent so far:\n" << Dump();
        return json();
      }
    }
  }

  /// Every message sent so far that mentions `id` as id.
  std::vector<json> MessagesWithId(const json& id) {
    std::vector<json> out;
    for (const std::string& line : transport_.Sent()) {
      json message = json::parse(line);
      if (message.is_object() && message.contains("id") && message["id"] == id) {
        out.push_back(message);
      }
    }
    return out;
  }

  std::vector<std::string> Sent() const { return transport_.Sent(); }

  std::string Dump() const {
    std::string out;
    for (const std::string& line : transport_.Sent()) out += line + "\n";
    return out;
  }

  /// Closes input and waits for Run() to return; returns its exit code.
  int Finish() {
    if (thread_.joinable()) {
      transport_.Close();
      thread_.join();
    }
    return exit_code_;
  }

  Server& server() { return server_; }

 private:
  MemoryTransport transport_;
  Server server_;
  int exit_code_ = -1;
  std::thread thread_;
};

/// Legacy session helper: initialize (+ initialized) with `version`.
inline json InitializeLegacy(ServerHarness& harness, const std::string& version,
                             json capabilities = json::object()) {
  json response = harness.Call(InitializeRequest("init", version, std::move(capabilities)));
  harness.Send(Notification("notifications/initialized"));
  return response;
}

}  // namespace togmal::mcp::testing
