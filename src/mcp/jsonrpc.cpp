#include "togmal/mcp/jsonrpc.h"

#include <utility>

#include "togmal/util/json_dump.h"

namespace togmal::mcp {

json MakeErrorResponse(const json& id, const RpcError& error) {
  json body = {{"code", error.code}, {"message", error.message}};
  if (!error.data.is_null()) body["data"] = error.data;
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(body)}};
}

json MakeResultResponse(const json& id, json result) {
  // Member by member: an initializer list builds a two-element array per
  // member before the object, and every answer of `serve` comes through here.
  json response(json::value_t::object);
  auto& members = response.get_ref<json::object_t&>();
  members.emplace("jsonrpc", "2.0");
  members.emplace("id", id);
  members.emplace("result", std::move(result));
  return response;
}

json MakeNotification(const std::string& method, json params) {
  json message = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) message["params"] = std::move(params);
  return message;
}

std::string Serialize(const json& message) {
  // dump() escapes control characters, so the result never holds a newline.
  return util::DumpJson(message);
}

}  // namespace togmal::mcp
