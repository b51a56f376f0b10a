#pragma once
/// The tool side of the MCP server: what a tool is, what its handler gets and
/// returns. Tools register into a ToolRegistry; the server validates arguments
/// against `input_schema` before a handler runs, so handlers see well-typed
/// arguments. Nothing here knows about togmal's domain.

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "togmal/util/result.h"

namespace togmal::mcp {

using json = nlohmann::json;

/// Hints for clients (MCP `ToolAnnotations`); untrusted by clients, but we
/// state them truthfully.
struct ToolAnnotations {
  std::string title;
  bool read_only = false;
  bool destructive = true;
  bool idempotent = false;
  bool open_world = true;
};

/// What a tool call returns. `content` is the list of MCP content items
/// (usually one text item); `structured` becomes `structuredContent`.
/// A handler whose Ask() said needs_input() returns NeedsInput(): the call is
/// not over, the client is asked first.
struct ToolResult {
  json content = json::array();
  std::optional<json> structured;
  bool is_error = false;
  bool needs_input = false;  ///< set only by NeedsInput()

  /// One text item plus structured content.
  static ToolResult Text(std::string text, std::optional<json> structured = std::nullopt);
  /// A tool-level failure (`isError: true`) with a message the model can act on.
  static ToolResult Failure(std::string message);
  /// The handler stops here because a question must go to the client first
  /// (modern era); the client's retry runs it again with the answer.
  static ToolResult NeedsInput();
};

/// A client capability a tool may need when it asks the client for input.
enum class ClientFeature { kSampling, kElicitation, kRoots };

/// What ToolContext::Ask() yields: the client's answer, why there is none, or
/// (modern era) that the question must first go to the client.
class AskResult {
 public:
  AskResult(json answer);          // NOLINT: implicit by design, like Result<json>
  AskResult(Error error);          // NOLINT
  AskResult(Result<json> result);  // NOLINT
  static AskResult NeedsInput();

  bool answered() const { return state_ == State::kAnswered; }
  explicit operator bool() const { return answered(); }
  /// The handler must return ToolResult::NeedsInput() (before any side effect).
  bool needs_input() const { return state_ == State::kNeedsInput; }

  const json& value() const { return answer_; }
  const json& operator*() const { return answer_; }
  const json* operator->() const { return &answer_; }
  /// Why there is no answer (for needs_input() too, for logs).
  const std::string& error() const { return error_; }

 private:
  enum class State { kAnswered, kFailed, kNeedsInput };
  AskResult(State state, json answer, std::string error);

  State state_;
  json answer_;
  std::string error_;
};

/// What a handler can ask of the call it serves. The same calls work in both
/// protocol eras: in the legacy era Ask() sends a server→client request and
/// waits for the reply; in the modern era an Ask() without an answer yet says
/// needs_input(), the handler returns ToolResult::NeedsInput(), the server
/// answers `input_required`, and the client's retry runs the handler again
/// with the answer available. Handlers must therefore do their asking before
/// any side effect.
class ToolContext {
 public:
  virtual ~ToolContext() = default;

  /// Whether the client declared the capability (in `initialize` for legacy,
  /// in this request's `_meta` for modern).
  virtual bool ClientSupports(ClientFeature feature) const = 0;

  /// Asks the client. `key` names the question uniquely within this tool call;
  /// `method` is "sampling/createMessage", "elicitation/create" or
  /// "roots/list"; `params` are that request's params. Returns the client's
  /// result object, an error (client lacks the capability, timed out,
  /// answered with an error), or needs_input() (modern era, not answered yet).
  virtual AskResult Ask(const std::string& key, const std::string& method, const json& params) = 0;

  /// True once the client cancelled this call (notifications/cancelled).
  virtual bool Cancelled() const = 0;

  /// The client's name from clientInfo, if it sent one (for audit records).
  virtual std::string ClientName() const = 0;
};

/// Handler: arguments (already validated against the input schema) → result
/// (or ToolResult::NeedsInput()). Throwing is allowed; the server turns an
/// exception into an isError result.
using ToolHandler = std::function<ToolResult(const json& arguments, ToolContext& context)>;

struct Tool {
  std::string name;
  std::string description;
  json input_schema;   ///< JSON Schema, `type: object`
  json output_schema;  ///< JSON Schema of structuredContent, `type: object`; null = none
  ToolAnnotations annotations;
  ToolHandler handler;
};

/// Tools by name, listed in registration order (deterministic tools/list).
class ToolRegistry {
 public:
  /// Adds a tool; a second tool with the same name is a programming error.
  void Add(Tool tool);
  const Tool* Find(std::string_view name) const;
  const std::vector<Tool>& All() const { return tools_; }

 private:
  std::vector<Tool> tools_;
};

/// A readable resource (`resources/list`, `resources/read`).
struct Resource {
  std::string uri;
  std::string name;
  std::string description;
  std::string mime_type;
  /// Produces the current text of the resource.
  std::function<Result<std::string>()> read;
};

class ResourceRegistry {
 public:
  void Add(Resource resource);
  const Resource* Find(std::string_view uri) const;
  const std::vector<Resource>& All() const { return resources_; }

 private:
  std::vector<Resource> resources_;
};

}  // namespace togmal::mcp
