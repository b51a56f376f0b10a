#pragma once
/// A minimal HTTP/1.1 client for one thing: POST a body to a plain http://
/// URL and read the status. No TLS (an https:// URL is refused, saying so):
/// the destination is a collector on this machine or the local network,
/// which forwards over TLS itself. No new library for it.

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "togmal/util/result.h"

namespace togmal::ship {

struct HttpUrl {
  std::string host;  ///< a name, an IPv4 address or an IPv6 address (without brackets)
  int port = 80;
  std::string path = "/";
  std::string ToString() const;
};

/// Parses http://HOST[:PORT][/PATH]. https:// and other schemes fail with a
/// message that says why.
Result<HttpUrl> ParseHttpUrl(std::string_view text);

struct HttpResponse {
  int status = 0;
  std::string body;  ///< the first few KB, for error messages
};

/// POSTs `body` with Content-Type `content_type` and `headers`; fails when
/// the server cannot be reached or answers something that is not HTTP.
/// `timeout` bounds connecting and each read or write.
Result<HttpResponse> HttpPost(const HttpUrl& url,
                              const std::vector<std::pair<std::string, std::string>>& headers,
                              std::string_view content_type, std::string_view body,
                              std::chrono::milliseconds timeout);

}  // namespace togmal::ship
