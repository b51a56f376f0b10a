// HTTP/1.1 POST over a plain TCP socket: one request per connection
// (Connection: close), the status line read back. Enough for an OTLP
// receiver; deliberately no TLS, redirects or chunked requests.
#include "togmal/ship/http.h"

#include <charconv>

#include "socket.h"

namespace togmal::ship {

std::string HttpUrl::ToString() const {
  const std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return "http://" + shown + ":" + std::to_string(port) + path;
}

Result<HttpUrl> ParseHttpUrl(std::string_view text) {
  const std::string original(text);
  if (text.starts_with("https://")) {
    return Fail(original +
                ": https:// is not supported; togmal ships over plain http:// to a collector "
                "on this machine or network (an OpenTelemetry Collector forwards over TLS)");
  }
  if (!text.starts_with("http://")) return Fail(original + ": not an http:// URL");
  text.remove_prefix(7);
  HttpUrl url;
  const std::size_t slash = text.find('/');
  std::string_view authority = text.substr(0, slash);
  url.path = slash == std::string_view::npos ? "/" : std::string(text.substr(slash));
  if (authority.find('@') != std::string_view::npos) {
    return Fail(original + ": user:password@ is not supported (use OTEL_EXPORTER_OTLP_HEADERS)");
  }
  std::string_view port;
  if (authority.starts_with("[")) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return Fail(original + ": unclosed [ in the host");
    url.host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return Fail(original + ": bad host");
      port = authority.substr(close + 2);
    }
  } else {
    const std::size_t colon = authority.find(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (url.host.empty()) return Fail(original + ": no host");
  if (!port.empty()) {
    auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), url.port);
    if (error != std::errc() || end != port.data() + port.size() || url.port < 1 ||
        url.port > 65535) {
      return Fail(original + ": bad port");
    }
  }
  for (char c : url.path) {
    if (c <= ' ' || c == 127)
      return Fail(original + ": the path holds a space or control character");
  }
  return url;
}

Result<HttpResponse> HttpPost(const HttpUrl& url,
                              const std::vector<std::pair<std::string, std::string>>& headers,
                              std::string_view content_type, std::string_view body,
                              std::chrono::milliseconds timeout) {
  auto socket = ConnectInet(url.host, url.port, SocketKind::kStream, timeout);
  if (!socket) return Fail(socket.error());
  const std::string host_header = url.host.find(':') != std::string::npos
                                      ? "[" + url.host + "]:" + std::to_string(url.port)
                                      : url.host + ":" + std::to_string(url.port);
  std::string request = "POST " + url.path + " HTTP/1.1\r\nHost: " + host_header +
                        "\r\nContent-Type: " + std::string(content_type) +
                        "\r\nContent-Length: " + std::to_string(body.size()) +
                        "\r\nConnection: close\r\nUser-Agent: togmal\r\n";
  for (const auto& [key, value] : headers) request += key + ": " + value + "\r\n";
  request += "\r\n";
  request.append(body);
  if (auto sent = SendAll(*socket, request); !sent) return Fail(sent.error());

  // The head, then a little of the body for error messages.
  std::string answer;
  auto head_read = [](const std::string& text) {
    return text.find("\r\n\r\n") != std::string::npos;
  };
  if (auto read = ReadUntil(*socket, answer, 64 * 1024, head_read); !read) {
    return Fail(read.error());
  }
  HttpResponse response;
  // "HTTP/1.1 200 OK"
  if (!answer.starts_with("HTTP/1.") || answer.size() < 12 || answer[8] != ' ') {
    return Fail(answer.empty() ? "the server closed the connection without an answer"
                               : "the answer is not HTTP");
  }
  auto [end, error] = std::from_chars(answer.data() + 9, answer.data() + 12, response.status);
  if (error != std::errc() || end != answer.data() + 12) return Fail("the answer has no status");
  const std::size_t head_end = answer.find("\r\n\r\n");
  if (head_end != std::string::npos) {
    std::string rest = answer.substr(head_end + 4);
    if (response.status >= 300) {
      // Best effort: whatever more arrives before the server closes.
      (void)ReadUntil(*socket, rest, 4096, [](const std::string&) { return false; });
    }
    response.body = rest.substr(0, 4096);
  }
  return response;
}

}  // namespace togmal::ship
