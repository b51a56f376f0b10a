#include "togmal/mcp/request_state.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <stdexcept>

#include "togmal/util/json_parse.h"

namespace togmal::mcp {
namespace {

using json = nlohmann::json;

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr int kFormatVersion = 1;

std::string Base64UrlEncode(const std::string& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  auto at = [&](std::size_t k) {
    return static_cast<unsigned>(static_cast<unsigned char>(bytes[k]));
  };
  for (; i + 2 < bytes.size(); i += 3) {
    unsigned triple = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
    for (int shift : {18, 12, 6, 0}) out.push_back(kAlphabet[(triple >> shift) & 63]);
  }
  if (i + 1 == bytes.size()) {
    unsigned triple = at(i) << 16;
    out.push_back(kAlphabet[(triple >> 18) & 63]);
    out.push_back(kAlphabet[(triple >> 12) & 63]);
  } else if (i + 2 == bytes.size()) {
    unsigned triple = (at(i) << 16) | (at(i + 1) << 8);
    for (int shift : {18, 12, 6}) out.push_back(kAlphabet[(triple >> shift) & 63]);
  }
  return out;
}

bool Base64UrlDecode(const std::string& text, std::string* bytes) {
  bytes->clear();
  unsigned buffer = 0;
  int bits = 0;
  for (char c : text) {
    int value;
    if (c >= 'A' && c <= 'Z')
      value = c - 'A';
    else if (c >= 'a' && c <= 'z')
      value = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      value = c - '0' + 52;
    else if (c == '-')
      value = 62;
    else if (c == '_')
      value = 63;
    else
      return false;
    buffer = (buffer << 6) | static_cast<unsigned>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes->push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return bits < 6;
}

std::string Hex(const unsigned char* data, std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < size; ++i) {
    out.push_back(kDigits[data[i] >> 4]);
    out.push_back(kDigits[data[i] & 15]);
  }
  return out;
}

std::int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

RequestStateCodec::RequestStateCodec(std::chrono::milliseconds lifetime) : lifetime_(lifetime) {
  if (RAND_bytes(key_, sizeof key_) != 1) {
    throw std::runtime_error("cannot draw a random key for requestState");
  }
}

std::string RequestStateCodec::DigestArguments(const nlohmann::json& arguments) {
  // nlohmann::json keeps object keys sorted, so dump() is canonical.
  std::string canonical = arguments.dump(-1, ' ', false, json::error_handler_t::replace);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(canonical.data()), canonical.size(), digest);
  return Hex(digest, sizeof digest);
}

std::string RequestStateCodec::Sign(const std::string& payload) const {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_size = 0;
  HMAC(EVP_sha256(), key_, static_cast<int>(sizeof key_),
       reinterpret_cast<const unsigned char*>(payload.data()), payload.size(), mac, &mac_size);
  return std::string(reinterpret_cast<const char*>(mac), mac_size);
}

std::string RequestStateCodec::Encode(RequestState state) const {
  json body = {{"v", kFormatVersion},
               {"method", "tools/call"},
               {"tool", state.tool},
               {"args", state.arguments_digest},
               {"answers", state.answers},
               {"asked", state.asked},
               {"exp", NowMs() + lifetime_.count()}};
  std::string payload = Base64UrlEncode(body.dump(-1, ' ', false, json::error_handler_t::replace));
  return payload + "." + Base64UrlEncode(Sign(payload));
}

Result<RequestState> RequestStateCodec::Decode(const std::string& token) const {
  std::size_t dot = token.find('.');
  std::string mac;
  std::string payload_bytes;
  if (dot == std::string::npos || !Base64UrlDecode(token.substr(dot + 1), &mac) ||
      !Base64UrlDecode(token.substr(0, dot), &payload_bytes)) {
    return Fail("requestState is malformed (not a value this server issued)");
  }
  std::string expected = Sign(token.substr(0, dot));
  if (mac.size() != expected.size() ||
      CRYPTO_memcmp(mac.data(), expected.data(), expected.size()) != 0) {
    return Fail(
        "requestState failed its integrity check (altered, or issued by another server "
        "process); call the tool again without requestState");
  }
  Result<json> parsed = util::ParseJson(payload_bytes);
  json body = parsed ? std::move(*parsed) : json();
  if (!body.is_object() || body.value("v", 0) != kFormatVersion ||
      body.value("method", "") != "tools/call" || !body.contains("exp") ||
      !body["exp"].is_number_integer() || !body.contains("answers") ||
      !body["answers"].is_object() || !body.contains("asked") || !body["asked"].is_array()) {
    return Fail("requestState is malformed (unknown format)");
  }
  RequestState state;
  state.expires_at_ms = body["exp"].get<std::int64_t>();
  if (NowMs() > state.expires_at_ms) {
    return Fail("requestState expired; call the tool again without requestState");
  }
  state.tool = body.value("tool", "");
  state.arguments_digest = body.value("args", "");
  state.answers = body["answers"];
  for (const json& key : body["asked"]) {
    if (key.is_string()) state.asked.push_back(key.get<std::string>());
  }
  return state;
}

}  // namespace togmal::mcp
