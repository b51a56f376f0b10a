#pragma once
// SHA-256 from OpenSSL's libcrypto, as lowercase hex. Private to the store.

#include <string>
#include <string_view>

namespace togmal::store {

/// hex(SHA-256(data)), 64 lowercase characters.
std::string Sha256Hex(std::string_view data);

}  // namespace togmal::store
