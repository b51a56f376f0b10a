#pragma once
// POSIX sockets for the transports: connect with a deadline, send all,
// read with a deadline. Private to the ship module.

#include <chrono>
#include <string>
#include <string_view>

#include "togmal/util/result.h"

namespace togmal::ship {

/// Closes the descriptor it owns.
class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  Socket(Socket&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Socket& operator=(Socket&& other) noexcept;
  ~Socket();
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

enum class SocketKind { kStream, kDatagram };

/// Connects to HOST:PORT. A numeric address is used as it is and
/// "localhost" is 127.0.0.1, without a name lookup; other names go through
/// getaddrinfo. `timeout` bounds connecting and later each send and read.
Result<Socket> ConnectInet(const std::string& host, int port, SocketKind kind,
                           std::chrono::milliseconds timeout);

/// Connects a datagram socket to a Unix socket path (/dev/log).
Result<Socket> ConnectUnixDatagram(const std::string& path, std::chrono::milliseconds timeout);

/// Writes all of `data`; fails naming errno's reason.
Result<void> SendAll(const Socket& socket, std::string_view data);

/// Appends what arrives to `out` until the peer closes, `limit` bytes are
/// there, or `done(out)` says enough; fails on a read error or timeout.
template <typename Done>
Result<void> ReadUntil(const Socket& socket, std::string& out, std::size_t limit, Done done);

/// One read into `out` (appending); 0 bytes read means the peer closed.
Result<std::size_t> ReadSome(const Socket& socket, std::string& out);

template <typename Done>
Result<void> ReadUntil(const Socket& socket, std::string& out, std::size_t limit, Done done) {
  while (out.size() < limit && !done(out)) {
    auto read = ReadSome(socket, out);
    if (!read) return Fail(read.error());
    if (*read == 0) return {};
  }
  return {};
}

}  // namespace togmal::ship
