#pragma once
/// JSON-RPC 2.0 vocabulary shared by the MCP server and its transports: error
/// codes (only those the MCP specification defines) and the error shape.

#include <nlohmann/json.hpp>
#include <string>

namespace togmal::mcp {

using json = nlohmann::json;

/// Error codes. -32020..-32099 is reserved by MCP: only the codes it defines
/// appear here.
namespace error_code {
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
/// Legacy eras only ("Resource not found"); modern uses kInvalidParams.
inline constexpr int kResourceNotFound = -32002;
/// Modern: the request needs a client capability it did not declare.
inline constexpr int kMissingRequiredClientCapability = -32021;
/// Modern: the `_meta` protocol version is not one this server speaks.
inline constexpr int kUnsupportedProtocolVersion = -32022;
}  // namespace error_code

/// A JSON-RPC error object; `data` is omitted when null.
struct RpcError {
  int code = error_code::kInternalError;
  std::string message;
  json data;
};

/// `{"jsonrpc":"2.0","id":id,"error":{...}}`.
json MakeErrorResponse(const json& id, const RpcError& error);

/// `{"jsonrpc":"2.0","id":id,"result":result}`.
json MakeResultResponse(const json& id, json result);

/// `{"jsonrpc":"2.0","method":method,"params":params}` (params omitted if null).
json MakeNotification(const std::string& method, json params);

/// Serialises one message for the wire: compact, invalid UTF-8 replaced, so a
/// message is always exactly one line.
std::string Serialize(const json& message);

}  // namespace togmal::mcp
