#include "otlp_receiver.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

namespace togmal::testing {

using nlohmann::json;

OtlpReceiver::OtlpReceiver(int port) {
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int on = 1;
  ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener_, 16) != 0) {
    throw std::runtime_error("the OTLP receiver cannot listen on port " + std::to_string(port));
  }
  socklen_t length = sizeof address;
  ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { Serve(); });
}

OtlpReceiver::~OtlpReceiver() {
  stopping_ = true;
  thread_.join();
  ::close(listener_);
}

std::vector<json> OtlpReceiver::Records() {
  std::lock_guard lock(mutex_);
  return records_;
}

std::vector<std::string> OtlpReceiver::Problems() {
  std::lock_guard lock(mutex_);
  return problems_;
}

std::string OtlpReceiver::LastHead() {
  std::lock_guard lock(mutex_);
  return last_head_;
}

void OtlpReceiver::Serve() {
  while (!stopping_) {
    pollfd waiting{listener_, POLLIN, 0};
    if (::poll(&waiting, 1, 50) <= 0) continue;
    const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    Handle(fd);
    ::close(fd);
  }
}

void OtlpReceiver::Handle(int fd) {
  std::string data;
  char buffer[8192];
  std::size_t head_end = std::string::npos, length = 0;
  while (true) {
    if (head_end == std::string::npos) {
      head_end = data.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        std::string head = data.substr(0, head_end);
        std::transform(head.begin(), head.end(), head.begin(), ::tolower);
        const std::size_t at = head.find("content-length:");
        length = at == std::string::npos ? 0 : std::stoul(head.substr(at + 15));
        std::lock_guard lock(mutex_);
        last_head_ = head;
      }
    }
    if (head_end != std::string::npos && data.size() >= head_end + 4 + length) break;
    pollfd waiting{fd, POLLIN, 0};
    if (::poll(&waiting, 1, 5000) <= 0) return;
    const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
    if (got <= 0) return;
    data.append(buffer, static_cast<std::size_t>(got));
  }
  const std::string head = LastHead();
  {
    std::lock_guard lock(mutex_);
    if (!data.starts_with("POST /v1/logs HTTP/1.1\r\n"))
      problems_.push_back("request line: " + data.substr(0, 40));
    if (head.find("content-type: application/json") == std::string::npos)
      problems_.push_back("no JSON content type");
  }
  const json body = json::parse(data.substr(head_end + 4, length), nullptr, false);
  Check(body);
  const std::string answer =
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
  ::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL);
  ++requests_;
}

// The OTLP JSON shape: resourceLogs[] → resource + scopeLogs[] → scope +
// logRecords[], each record with a string timeUnixNano, severityNumber,
// severityText, a string body and key/value attributes.
void OtlpReceiver::Check(const json& body) {
  std::lock_guard lock(mutex_);
  auto problem = [this](std::string what) { problems_.push_back(std::move(what)); };
  // A member or null, without const operator[]'s undefined behaviour.
  auto at = [](const json& object, const char* key) {
    return object.is_object() && object.contains(key) ? object.at(key) : json();
  };
  if (!at(body, "resourceLogs").is_array()) return problem("no resourceLogs array");
  for (const json& resource_logs : body["resourceLogs"]) {
    if (!at(at(resource_logs, "resource"), "attributes").is_array()) {
      problem("resourceLogs without resource.attributes");
    }
    if (!at(resource_logs, "scopeLogs").is_array()) problem("no scopeLogs array");
    for (const json& scope_logs : at(resource_logs, "scopeLogs")) {
      if (!at(at(scope_logs, "scope"), "name").is_string()) problem("scope without a name");
      if (!at(scope_logs, "logRecords").is_array()) problem("no logRecords array");
      for (const json& record : at(scope_logs, "logRecords")) {
        if (!at(record, "timeUnixNano").is_string()) problem("timeUnixNano is not a string");
        if (!at(record, "severityNumber").is_number_integer()) {
          problem("severityNumber is not a number");
        }
        if (!at(record, "severityText").is_string()) problem("no severityText");
        if (!at(at(record, "body"), "stringValue").is_string())
          problem("body is not a stringValue");
        if (!at(record, "attributes").is_array()) problem("attributes is not an array");
        for (const json& attribute : at(record, "attributes")) {
          const json value = at(attribute, "value");
          if (!at(attribute, "key").is_string() || !value.is_object() || value.size() != 1 ||
              !(at(value, "stringValue").is_string() || at(value, "intValue").is_string())) {
            problem("attribute is not {key, value:{stringValue|intValue}}: " + attribute.dump());
          }
        }
        records_.push_back(record);
      }
    }
  }
}

}  // namespace togmal::testing
