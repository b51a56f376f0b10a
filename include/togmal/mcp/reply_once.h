#pragma once
/// Every JSON-RPC request gets exactly one reply (clangd's ReplyOnce): a handler
/// receives a ReplyOnce and answers through it. If it is destroyed without an
/// answer the client gets an internal error instead of waiting forever; a
/// second answer is a bug that is logged and dropped.

#include <functional>
#include <string>

#include "togmal/mcp/jsonrpc.h"

namespace togmal::mcp {

class ReplyOnce {
 public:
  /// Receives the complete response message (result or error), once.
  using Sink = std::function<void(json response)>;

  ReplyOnce(json id, std::string method, Sink sink);
  ReplyOnce(ReplyOnce&& other) noexcept;
  ReplyOnce& operator=(ReplyOnce&& other) noexcept;
  ReplyOnce(const ReplyOnce&) = delete;
  ReplyOnce& operator=(const ReplyOnce&) = delete;
  /// Answers -32603 if nobody replied.
  ~ReplyOnce();

  void Result(json result);
  void Error(RpcError error);
  void Error(int code, std::string message, json data = nullptr);

  bool replied() const { return replied_; }
  const json& id() const { return id_; }
  const std::string& method() const { return method_; }

 private:
  void Send(json response);

  json id_;
  std::string method_;
  Sink sink_;
  bool replied_ = false;
};

}  // namespace togmal::mcp
