#pragma once
// The bytes a JSON string holds as they are, for util's writer and reader:
// printable ASCII and DEL, but not the quote and the backslash (control
// characters are escaped, UTF-8 is checked by sequence). Private to util.

#include <array>
#include <cstddef>

namespace togmal::util {

inline constexpr std::array<bool, 256> kJsonPlainBytes = [] {
  std::array<bool, 256> plain{};
  for (int c = 0x20; c < 0x80; ++c) plain[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
  return plain;
}();

}  // namespace togmal::util
