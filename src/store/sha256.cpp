#include "sha256.h"

// The low-level SHA256_* functions are deprecated in OpenSSL 3 in favour of
// EVP, but EVP's first digest fetches an algorithm implementation from the
// provider registry: it reads openssl.cnf and builds the name map, about
// 5 million instructions — more than the rest of a hook call. The low-level
// functions compute the same digest with none of that.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include <array>
#include <stdexcept>

namespace togmal::store {

std::string Sha256Hex(std::string_view data) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256_CTX context;
  if (SHA256_Init(&context) != 1 || SHA256_Update(&context, data.data(), data.size()) != 1 ||
      SHA256_Final(digest.data(), &context) != 1) {
    // Cannot fail for in-memory input; no hash would mean no audit.
    throw std::runtime_error("OpenSSL SHA-256 failed");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(digest.size() * 2);
  for (unsigned char byte : digest) {
    hex.push_back(kHex[byte >> 4]);
    hex.push_back(kHex[byte & 0x0f]);
  }
  return hex;
}

}  // namespace togmal::store
