#include "socket.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

namespace togmal::ship {

namespace {

std::string Errno(int error) { return std::strerror(error); }

void SetTimeouts(int fd, std::chrono::milliseconds timeout) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

// connect() with a deadline: non-blocking connect, then poll for writability.
Result<void> ConnectWithin(int fd, const sockaddr* address, socklen_t length,
                           std::chrono::milliseconds timeout) {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  if (::connect(fd, address, length) != 0) {
    if (errno != EINPROGRESS) return Fail(Errno(errno));
    pollfd waiting{fd, POLLOUT, 0};
    const int ready = ::poll(&waiting, 1, static_cast<int>(timeout.count()));
    if (ready == 0) return Fail("no answer within " + std::to_string(timeout.count()) + " ms");
    if (ready < 0) return Fail(Errno(errno));
    int error = 0;
    socklen_t size = sizeof error;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size);
    if (error != 0) return Fail(Errno(error));
  }
  ::fcntl(fd, F_SETFL, flags);
  SetTimeouts(fd, timeout);
  return {};
}

}  // namespace

Socket& Socket::operator=(Socket&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

Socket::~Socket() {
  if (fd_ >= 0) ::close(fd_);
}

Result<Socket> ConnectInet(const std::string& host, int port, SocketKind kind,
                           std::chrono::milliseconds timeout) {
  const int type = kind == SocketKind::kStream ? SOCK_STREAM : SOCK_DGRAM;
  const std::string where = host + ":" + std::to_string(port);
  sockaddr_storage address{};
  socklen_t length = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&address);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&address);
  const std::string numeric = host == "localhost" ? "127.0.0.1" : host;
  if (::inet_pton(AF_INET, numeric.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    length = sizeof *v4;
  } else if (::inet_pton(AF_INET6, numeric.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    length = sizeof *v6;
  } else {
    // A name: the resolver (a statically linked togmal needs the same
    // glibc's NSS libraries at run time for this; numeric addresses do not).
    addrinfo hints{};
    hints.ai_socktype = type;
    addrinfo* found = nullptr;
    const int status = ::getaddrinfo(host.c_str(), nullptr, &hints, &found);
    if (status != 0 || found == nullptr) {
      return Fail("cannot resolve " + host + ": " + ::gai_strerror(status));
    }
    std::memcpy(&address, found->ai_addr, found->ai_addrlen);
    length = found->ai_addrlen;
    ::freeaddrinfo(found);
    if (address.ss_family == AF_INET) v4->sin_port = htons(static_cast<uint16_t>(port));
    if (address.ss_family == AF_INET6) v6->sin6_port = htons(static_cast<uint16_t>(port));
  }
  Socket socket(::socket(address.ss_family, type | SOCK_CLOEXEC, 0));
  if (socket.fd() < 0) return Fail("cannot open a socket: " + Errno(errno));
  if (auto connected =
          ConnectWithin(socket.fd(), reinterpret_cast<sockaddr*>(&address), length, timeout);
      !connected) {
    return Fail("cannot connect to " + where + ": " + connected.error());
  }
  return socket;
}

Result<Socket> ConnectUnixDatagram(const std::string& path, std::chrono::milliseconds timeout) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) return Fail("socket path too long: " + path);
  std::memcpy(address.sun_path, path.data(), path.size());
  Socket socket(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (socket.fd() < 0) return Fail("cannot open a socket: " + Errno(errno));
  if (::connect(socket.fd(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    return Fail("cannot connect to " + path + ": " + Errno(errno));
  }
  SetTimeouts(socket.fd(), timeout);
  return socket;
}

Result<void> SendAll(const Socket& socket, std::string_view data) {
  while (!data.empty()) {
    const ssize_t sent = ::send(socket.fd(), data.data(), data.size(), MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return Fail("sending timed out");
      return Fail("sending failed: " + Errno(errno));
    }
    data.remove_prefix(static_cast<std::size_t>(sent));
  }
  return {};
}

Result<std::size_t> ReadSome(const Socket& socket, std::string& out) {
  char buffer[4096];
  while (true) {
    const ssize_t got = ::recv(socket.fd(), buffer, sizeof buffer, 0);
    if (got >= 0) {
      out.append(buffer, static_cast<std::size_t>(got));
      return static_cast<std::size_t>(got);
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return Fail("no answer in time");
    return Fail("reading failed: " + Errno(errno));
  }
}

}  // namespace togmal::ship
