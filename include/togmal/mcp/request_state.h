#pragma once
/// The `requestState` of a modern `input_required` result. The client hands it
/// back verbatim on its retry, so it is attacker-controlled: it is signed with
/// HMAC-SHA256 under a key drawn at random when the codec is made (one per
/// server process), expires, and is bound to the method, the tool and the
/// canonical form of the arguments. It carries the answers already received so
/// that a handler asking several questions completes over several retries.

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "togmal/util/result.h"

namespace togmal::mcp {

/// What a requestState says.
struct RequestState {
  std::string tool;                                   ///< tool name the state was issued for
  std::string arguments_digest;                       ///< SHA-256 (hex) of the canonical arguments
  nlohmann::json answers = nlohmann::json::object();  ///< key → client result
  std::vector<std::string> asked;                     ///< keys the client is expected to answer
  std::int64_t expires_at_ms = 0;                     ///< Unix time in ms
};

class RequestStateCodec {
 public:
  /// Draws a fresh random key (OpenSSL RAND_bytes).
  explicit RequestStateCodec(std::chrono::milliseconds lifetime = std::chrono::minutes(10));

  /// The digest a state binds arguments by (canonical JSON: sorted keys).
  static std::string DigestArguments(const nlohmann::json& arguments);

  /// Signs a state; `expires_at_ms` is set from the lifetime.
  std::string Encode(RequestState state) const;

  /// Verifies signature and expiry; a precise error otherwise.
  Result<RequestState> Decode(const std::string& token) const;

 private:
  std::string Sign(const std::string& payload) const;

  std::chrono::milliseconds lifetime_;
  unsigned char key_[32];
};

}  // namespace togmal::mcp
