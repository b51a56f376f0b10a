#pragma once
// Shared by the build-time compilers of config/*.yaml (togmal_compile_rules,
// togmal_compile_settings, togmal_compile_tables; see cmake/CompileConfig.cmake):
// each is `TOOL <input.yaml> <output.cpp>` and exits with a sysexits code.

#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

namespace togmal::util::build_tool {

inline constexpr int kUsage = 64;      // EX_USAGE
inline constexpr int kDataErr = 65;    // EX_DATAERR: the input is invalid
inline constexpr int kNoInput = 66;    // EX_NOINPUT
inline constexpr int kCantCreat = 73;  // EX_CANTCREAT

/// The whole of argv[1], or nullopt after printing why to stderr and setting
/// `exit_code` (a wrong argument count or an unreadable file).
inline std::optional<std::string> ReadInput(int argc, char** argv, std::string_view tool,
                                            int& exit_code) {
  if (argc != 3) {
    std::cerr << "usage: " << tool << " <input.yaml> <output.cpp>\n";
    exit_code = kUsage;
    return std::nullopt;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) {
    std::cerr << "cannot read " << argv[1] << "\n";
    exit_code = kNoInput;
    return std::nullopt;
  }
  return text.str();
}

/// `text` as adjacent raw string literals of at most 4,000 characters each
/// (some compilers limit one literal's length), or nullopt when `text` holds
/// the delimiter.
inline std::optional<std::string> RawLiteral(std::string_view text) {
  constexpr std::string_view kClose = ")togmal\"";
  if (text.find(kClose) != std::string_view::npos) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < text.size() || i == 0; i += 4000) {
    if (i != 0) out += "\n    ";
    out += "R\"togmal(";
    out += text.substr(i, 4000);
    out += kClose;
  }
  return out;
}

}  // namespace togmal::util::build_tool
