#pragma once
// The ToolContext a tool handler gets: one Ask() for both eras. Legacy: a
// server→client request, waited for on the worker. Modern: answers carried
// by the call's requestState, or needs-input, which the server turns into an
// `input_required` result.

#include <string>

#include "server_impl.h"
#include "togmal/mcp/tool.h"

namespace togmal::mcp {

class ToolCallContext final : public ToolContext {
 public:
  ToolCallContext(Server::Impl& server, const CallContext& call, json answers);

  bool ClientSupports(ClientFeature feature) const override;
  AskResult Ask(const std::string& key, const std::string& method, const json& params) override;
  bool Cancelled() const override;
  std::string ClientName() const override;

  /// Modern: an Ask() had no answer yet; the call is not over.
  bool needs_input() const { return needs_input_; }
  /// ... because the request did not declare this capability (empty if it did).
  const std::string& missing_capability() const { return missing_capability_; }
  /// ... and this is the question for the client (when it has the capability).
  const std::string& question_key() const { return question_key_; }
  const json& question() const { return question_; }
  /// Answers received on earlier round trips.
  const json& answers() const { return answers_; }

 private:
  Server::Impl& server_;
  const CallContext& call_;
  json answers_;
  bool needs_input_ = false;
  std::string missing_capability_;
  std::string question_key_;
  json question_;
};

}  // namespace togmal::mcp
