// resources/* (list, templates, read, legacy subscribe/unsubscribe) and the
// modern subscriptions/listen streams; change notifications to both.
#include <spdlog/spdlog.h>

#include <utility>

#include "server_impl.h"

namespace togmal::mcp {
namespace {

/// Reads params.uri; replies with an error and returns null if absent.
const std::string* UriParam(const json& params, ReplyOnce& reply) {
  auto uri = params.find("uri");
  if (uri == params.end() || !uri->is_string()) {
    reply.Error(error_code::kInvalidParams,
                "Invalid params: " + reply.method() + " needs uri (a string)");
    return nullptr;
  }
  return &uri->get_ref<const std::string&>();
}

void ResourceNotFound(Era era, const std::string& uri, ReplyOnce& reply) {
  // The code changed between the eras.
  int code = era == Era::kModern ? error_code::kInvalidParams : error_code::kResourceNotFound;
  reply.Error(code, "Resource not found: " + uri, {{"uri", uri}});
}

}  // namespace

void Server::Impl::ResourcesList(const json& params, const CallContext& call, ReplyOnce reply) {
  if (RejectCursor(params, reply)) return;
  json list = json::array();
  for (const Resource& resource : resources_.All()) {
    json item = {{"uri", resource.uri}, {"name", resource.name}};
    if (!resource.description.empty()) item["description"] = resource.description;
    if (!resource.mime_type.empty()) item["mimeType"] = resource.mime_type;
    list.push_back(std::move(item));
  }
  json result = {{"resources", std::move(list)}};
  AddCacheHints(result, call, kStableTtlMs, "public");
  reply.Result(std::move(result));
}

void Server::Impl::ResourceTemplatesList(const json& params, const CallContext& call,
                                         ReplyOnce reply) {
  if (RejectCursor(params, reply)) return;
  json result = {{"resourceTemplates", json::array()}};
  AddCacheHints(result, call, kStableTtlMs, "public");
  reply.Result(std::move(result));
}

void Server::Impl::ResourcesRead(const json& params, const CallContext& call, ReplyOnce reply) {
  const std::string* uri = UriParam(params, reply);
  if (uri == nullptr) return;
  const Resource* resource = resources_.Find(*uri);
  if (resource == nullptr) return ResourceNotFound(call.era, *uri, reply);
  Result<std::string> text = Fail("");
  try {
    text = resource->read();
  } catch (const std::exception& e) {
    text = Fail(e.what());
  }
  if (!text) {
    return reply.Error(error_code::kInternalError,
                       "Internal error: reading " + *uri + " failed: " + text.error());
  }
  json content = {{"uri", *uri}, {"text", std::move(*text)}};
  if (!resource->mime_type.empty()) content["mimeType"] = resource->mime_type;
  json result = {{"contents", json::array({std::move(content)})}};
  // Contents change whenever the data does, and may be personal (audit).
  AddCacheHints(result, call, 0, "private");
  reply.Result(std::move(result));
}

void Server::Impl::ResourcesSubscribe(const json& params, const CallContext& call,
                                      ReplyOnce reply) {
  const std::string* uri = UriParam(params, reply);
  if (uri == nullptr) return;
  if (resources_.Find(*uri) == nullptr) return ResourceNotFound(call.era, *uri, reply);
  {
    std::lock_guard lock(session_mutex_);
    if (session_) session_->subscriptions.insert(*uri);
  }
  reply.Result(json::object());
}

void Server::Impl::ResourcesUnsubscribe(const json& params, const CallContext& call,
                                        ReplyOnce reply) {
  const std::string* uri = UriParam(params, reply);
  if (uri == nullptr) return;
  if (resources_.Find(*uri) == nullptr) return ResourceNotFound(call.era, *uri, reply);
  {
    std::lock_guard lock(session_mutex_);
    if (session_) session_->subscriptions.erase(*uri);
  }
  reply.Result(json::object());
}

void Server::Impl::SubscriptionsListen(const json& params, const CallContext& call,
                                       ReplyOnce reply) {
  auto requested = params.find("notifications");
  if (requested == params.end() || !requested->is_object()) {
    return reply.Error(error_code::kInvalidParams,
                       "Invalid params: subscriptions/listen needs notifications (an object)");
  }
  Listener listener;
  listener.id = call.id;
  json honored = json::object();
  if (requested->value("toolsListChanged", false) == true) {
    listener.tools_list_changed = true;
    honored["toolsListChanged"] = true;
  }
  if (requested->value("resourcesListChanged", false) == true) {
    listener.resources_list_changed = true;
    honored["resourcesListChanged"] = true;
  }
  if (auto uris = requested->find("resourceSubscriptions");
      uris != requested->end() && uris->is_array()) {
    json accepted = json::array();
    for (const json& uri : *uris) {
      // Only resources that exist can ever change.
      if (uri.is_string() && resources_.Find(uri.get<std::string>()) != nullptr) {
        listener.uris.insert(uri.get<std::string>());
        accepted.push_back(uri);
      }
    }
    if (!accepted.empty()) honored["resourceSubscriptions"] = std::move(accepted);
  }
  std::lock_guard lock(listeners_mutex_);
  // Each open stream holds memory until it is cancelled: bounded like the
  // requests on the worker pool.
  if (listeners_.size() >= options_.max_waiting_requests) {
    return reply.Error(error_code::kInternalError,
                       "Internal error: the server is overloaded (" +
                           std::to_string(listeners_.size()) +
                           " subscriptions/listen streams are open); cancel one first");
  }
  listener.reply.emplace(std::move(reply));
  // Acknowledged under the lock so no update can overtake the acknowledgement.
  Send(MakeNotification(
      "notifications/subscriptions/acknowledged",
      {{"notifications", std::move(honored)}, {"_meta", {{kMetaSubscriptionId, call.id}}}}));
  listeners_.emplace(IdKey(call.id), std::move(listener));
}

void Server::Impl::CloseListeners() {
  std::map<std::string, Listener> listeners;
  {
    std::lock_guard lock(listeners_mutex_);
    listeners.swap(listeners_);
  }
  for (auto& [key, listener] : listeners) {
    listener.reply->Result(
        {{"resultType", "complete"}, {"_meta", {{kMetaSubscriptionId, listener.id}}}});
  }
}

void Server::Impl::NotifyResourceUpdated(const std::string& uri) {
  if (!running_) return;
  {
    std::lock_guard lock(session_mutex_);
    if (session_ && session_->subscriptions.count(uri) != 0) {
      Send(MakeNotification("notifications/resources/updated", {{"uri", uri}}));
    }
  }
  std::lock_guard lock(listeners_mutex_);
  for (const auto& [key, listener] : listeners_) {
    if (listener.uris.count(uri) == 0) continue;
    Send(MakeNotification("notifications/resources/updated",
                          {{"uri", uri}, {"_meta", {{kMetaSubscriptionId, listener.id}}}}));
  }
}

}  // namespace togmal::mcp
