// The server's method table and read loop; each concern of serving lives in
// its own file (see server_impl.h).
#include "togmal/mcp/server.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "server_impl.h"

namespace togmal::mcp {

Server::Impl::Impl(Transport& transport, const ToolRegistry& tools,
                   const ResourceRegistry& resources, ServerOptions options)
    : transport_(transport),
      tools_(tools),
      resources_(resources),
      options_(std::move(options)),
      request_states_(options_.request_state_lifetime),
      admission_({.requests = options_.max_waiting_requests,
                  .bytes = options_.max_waiting_bytes,
                  .hard_factor = 4}),
      pool_(options_.workers) {
  // clang-format off
  methods_ = {
      {"initialize",               {&Impl::Initialize,            Eras::kLegacy, Runs::kInline,   Session::kOpens}},
      {"ping",                     {&Impl::Ping,                  Eras::kLegacy, Runs::kInline,   Session::kOptional}},
      {"server/discover",          {&Impl::Discover,              Eras::kModern, Runs::kInline,   Session::kRequired}},
      {"tools/list",               {&Impl::ToolsList,             Eras::kBoth,   Runs::kInline,   Session::kRequired}},
      {"tools/call",               {&Impl::ToolsCall,             Eras::kBoth,   Runs::kOnWorker, Session::kRequired}},
      {"resources/list",           {&Impl::ResourcesList,         Eras::kBoth,   Runs::kInline,   Session::kRequired}},
      {"resources/templates/list", {&Impl::ResourceTemplatesList, Eras::kBoth,   Runs::kInline,   Session::kRequired}},
      {"resources/read",           {&Impl::ResourcesRead,         Eras::kBoth,   Runs::kOnWorker, Session::kRequired}},
      {"resources/subscribe",      {&Impl::ResourcesSubscribe,    Eras::kLegacy, Runs::kInline,   Session::kRequired}},
      {"resources/unsubscribe",    {&Impl::ResourcesUnsubscribe,  Eras::kLegacy, Runs::kInline,   Session::kRequired}},
      {"logging/setLevel",         {&Impl::LoggingSetLevel,       Eras::kLegacy, Runs::kInline,   Session::kRequired}},
      {"subscriptions/listen",     {&Impl::SubscriptionsListen,   Eras::kModern, Runs::kInline,   Session::kRequired}},
  };
  // clang-format on
}

int Server::Impl::Run() {
  running_ = true;
  AttachLogForwarding(this);
  for (;;) {
    IncomingLine incoming = transport_.Receive();
    if (incoming.kind == IncomingLine::Kind::kClosed) break;
    if (incoming.kind == IncomingLine::Kind::kOversize) {
      spdlog::warn("discarded an incoming {}", incoming.text);
      Send(MakeErrorResponse(
          nullptr, {error_code::kInvalidRequest, "Invalid Request: " + incoming.text, nullptr}));
      continue;
    }
    HandleLine(incoming.text);
  }
  // Input is over: nobody can answer our questions any more; let running
  // calls finish (and answer), then end listen streams.
  FailAllOutgoing("the client closed its input");
  pool_.Drain();
  CloseListeners();
  running_ = false;
  DetachLogForwarding(this);
  return 0;
}

Server::Server(Transport& transport, const ToolRegistry& tools, const ResourceRegistry& resources,
               ServerOptions options)
    : impl_(std::make_unique<Impl>(transport, tools, resources, std::move(options))) {}

Server::~Server() = default;

int Server::Run() { return impl_->Run(); }

void Server::NotifyResourceUpdated(const std::string& uri) { impl_->NotifyResourceUpdated(uri); }

}  // namespace togmal::mcp
