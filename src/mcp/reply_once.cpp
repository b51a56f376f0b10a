#include "togmal/mcp/reply_once.h"

#include <spdlog/spdlog.h>

#include <utility>

namespace togmal::mcp {

ReplyOnce::ReplyOnce(json id, std::string method, Sink sink)
    : id_(std::move(id)), method_(std::move(method)), sink_(std::move(sink)) {}

ReplyOnce::ReplyOnce(ReplyOnce&& other) noexcept
    : id_(std::move(other.id_)),
      method_(std::move(other.method_)),
      sink_(std::move(other.sink_)),
      replied_(other.replied_) {
  other.replied_ = true;  // the moved-from object owes nothing
  other.sink_ = nullptr;
}

ReplyOnce& ReplyOnce::operator=(ReplyOnce&& other) noexcept {
  if (this != &other) {
    if (!replied_ && sink_) {
      Send(MakeErrorResponse(
          id_, {error_code::kInternalError, "internal error: " + method_ + " handler did not reply",
                nullptr}));
    }
    id_ = std::move(other.id_);
    method_ = std::move(other.method_);
    sink_ = std::move(other.sink_);
    replied_ = other.replied_;
    other.replied_ = true;
    other.sink_ = nullptr;
  }
  return *this;
}

ReplyOnce::~ReplyOnce() {
  if (!replied_ && sink_) {
    spdlog::error("{} handler did not reply to request {}", method_, id_.dump());
    Send(
        MakeErrorResponse(id_, {error_code::kInternalError,
                                "internal error: " + method_ + " handler did not reply", nullptr}));
  }
}

void ReplyOnce::Result(json result) { Send(MakeResultResponse(id_, std::move(result))); }

void ReplyOnce::Error(RpcError error) { Send(MakeErrorResponse(id_, error)); }

void ReplyOnce::Error(int code, std::string message, json data) {
  Error(RpcError{code, std::move(message), std::move(data)});
}

void ReplyOnce::Send(json response) {
  if (replied_) {
    spdlog::error("{} handler replied twice to request {}; second reply dropped", method_,
                  id_.dump());
    return;
  }
  replied_ = true;
  if (!sink_) return;
  try {
    sink_(std::move(response));
  } catch (const std::exception& e) {
    // A destructor may be calling us: never let a failed write escape.
    spdlog::error("sending the reply to {} failed: {}", id_.dump(), e.what());
  }
}

}  // namespace togmal::mcp
