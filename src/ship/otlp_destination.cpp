// An OTLP/HTTP logs endpoint. 2xx acknowledges the batch (a partial success
// still means the receiver has seen every record); 408, 429 and 5xx are worth
// retrying, as the OTLP specification says; any other status will not change
// by sending the same batch again.
#include <unistd.h>

#include "togmal/ship/destination.h"
#include "togmal/ship/http.h"

namespace togmal::ship {

namespace {

class OtlpDestination final : public Destination {
 public:
  OtlpDestination(HttpUrl url, HttpHeaders headers, ShipContext context,
                  std::chrono::milliseconds timeout)
      : url_(std::move(url)),
        headers_(std::move(headers)),
        context_(std::move(context)),
        timeout_(timeout) {}

  std::string Name() const override { return "otlp " + url_.ToString(); }

  std::string Preview(std::span<const store::AuditEntry> entries) const override {
    return EncodeOtlpLogs(entries, context_);
  }

  Delivery Send(std::span<const store::AuditEntry> entries) override {
    auto response =
        HttpPost(url_, headers_, "application/json", EncodeOtlpLogs(entries, context_), timeout_);
    if (!response) return {Outcome::kRetry, response.error()};
    const int status = response->status;
    if (status >= 200 && status < 300) return {};
    std::string problem = "HTTP " + std::to_string(status);
    if (!response->body.empty()) problem += ": " + response->body.substr(0, 300);
    const bool transient = status == 408 || status == 429 || status >= 500;
    return {transient ? Outcome::kRetry : Outcome::kRefused, problem};
  }

 private:
  HttpUrl url_;
  HttpHeaders headers_;
  ShipContext context_;
  std::chrono::milliseconds timeout_;
};

}  // namespace

Result<std::unique_ptr<Destination>> MakeOtlpDestination(std::string_view url, HttpHeaders headers,
                                                         ShipContext context,
                                                         std::chrono::milliseconds timeout) {
  auto parsed = ParseHttpUrl(url);
  if (!parsed) return Fail("OTLP endpoint " + parsed.error());
  return std::unique_ptr<Destination>(std::make_unique<OtlpDestination>(
      std::move(*parsed), std::move(headers), std::move(context), timeout));
}

}  // namespace togmal::ship
