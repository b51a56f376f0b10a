// A syslog receiver. Syslog has no acknowledgement: a batch counts as
// delivered when every message was handed to the socket (UDP and /dev/log:
// sent; TCP: written, our side shut down, and the receiver closed its side or
// stayed quiet until the timeout without resetting the connection).
#include <sys/socket.h>
#include <unistd.h>

#include <charconv>

#include "socket.h"
#include "togmal/ship/destination.h"
#include "togmal/ship/syslog.h"

namespace togmal::ship {

namespace {

enum class Transport { kUnix, kUdp, kTcp };

struct Target {
  Transport transport = Transport::kUnix;
  std::string path;  // unix
  std::string host;  // udp, tcp
  int port = 514;
};

Result<Target> ParseTarget(std::string_view text) {
  const std::string original(text);
  Target target;
  if (text.starts_with("unix:")) {
    target.path = std::string(text.substr(5));
    if (target.path.empty() || target.path.front() != '/') {
      return Fail("syslog target " + original + ": unix: needs an absolute path (unix:/dev/log)");
    }
    return target;
  }
  if (text.starts_with("udp://")) {
    target.transport = Transport::kUdp;
    text.remove_prefix(6);
  } else if (text.starts_with("tcp://")) {
    target.transport = Transport::kTcp;
    text.remove_prefix(6);
  } else {
    return Fail("syslog target " + original +
                ": expected unix:/PATH, udp://HOST:PORT or tcp://HOST:PORT");
  }
  if (!text.empty() && text.back() == '/') text.remove_suffix(1);
  std::size_t colon = text.rfind(':');
  if (text.starts_with("[")) {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos) return Fail("syslog target " + original + ": bad host");
    target.host = std::string(text.substr(1, close - 1));
    colon = close + 1 < text.size() && text[close + 1] == ':' ? close + 1 : std::string_view::npos;
  } else {
    target.host = std::string(text.substr(0, colon));
  }
  if (colon != std::string_view::npos) {
    const std::string_view port = text.substr(colon + 1);
    auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), target.port);
    if (error != std::errc() || end != port.data() + port.size() || target.port < 1 ||
        target.port > 65535) {
      return Fail("syslog target " + original + ": bad port");
    }
  }
  if (target.host.empty()) return Fail("syslog target " + original + ": no host");
  return target;
}

class SyslogDestination final : public Destination {
 public:
  SyslogDestination(std::string name, Target target, ShipContext context,
                    std::chrono::milliseconds timeout)
      : name_(std::move(name)),
        target_(std::move(target)),
        context_(std::move(context)),
        timeout_(timeout) {}

  std::string Name() const override { return "syslog " + name_; }

  std::string Preview(std::span<const store::AuditEntry> entries) const override {
    std::string out;
    for (const auto& entry : entries) out += Message(entry) + "\n";
    return out;
  }

  Delivery Send(std::span<const store::AuditEntry> entries) override {
    auto socket = Connect();
    if (!socket) return {Outcome::kRetry, socket.error()};
    for (const auto& entry : entries) {
      const std::string message = Message(entry);
      auto sent =
          SendAll(*socket, target_.transport == Transport::kTcp ? OctetCounted(message) : message);
      if (!sent) return {Outcome::kRetry, sent.error()};
    }
    if (target_.transport != Transport::kTcp) return {};
    // Our FIN after the last frame; a receiver that read everything closes
    // too. A reset means it did not take them all.
    ::shutdown(socket->fd(), SHUT_WR);
    std::string ignored;
    auto closed = ReadUntil(*socket, ignored, 4096, [](const std::string&) { return false; });
    if (!closed && closed.error().find("no answer") == std::string::npos) {
      return {Outcome::kRetry, closed.error()};
    }
    return {};
  }

 private:
  std::string Message(const store::AuditEntry& entry) const {
    return EncodeSyslog(entry, context_, static_cast<long>(::getpid()));
  }

  Result<Socket> Connect() const {
    switch (target_.transport) {
      case Transport::kUnix:
        return ConnectUnixDatagram(target_.path, timeout_);
      case Transport::kUdp:
        return ConnectInet(target_.host, target_.port, SocketKind::kDatagram, timeout_);
      case Transport::kTcp:
        break;
    }
    return ConnectInet(target_.host, target_.port, SocketKind::kStream, timeout_);
  }

  std::string name_;
  Target target_;
  ShipContext context_;
  std::chrono::milliseconds timeout_;
};

}  // namespace

Result<std::unique_ptr<Destination>> MakeSyslogDestination(std::string_view target,
                                                           ShipContext context,
                                                           std::chrono::milliseconds timeout) {
  auto parsed = ParseTarget(target);
  if (!parsed) return Fail(parsed.error());
  return std::unique_ptr<Destination>(std::make_unique<SyslogDestination>(
      std::string(target), std::move(*parsed), std::move(context), timeout));
}

}  // namespace togmal::ship
