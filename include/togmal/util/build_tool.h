#pragma once
// Shared by the build-time compilers of config/*.yaml (togmal_compile_rules,
// togmal_compile_settings, togmal_compile_tables; see cmake/CompileConfig.cmake):
// each is `TOOL <input.yaml> <output.cpp>` and exits with a sysexits code.

#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace togmal::util::build_tool {

inline constexpr int kUsage = 64;      // EX_USAGE
inline constexpr int kDataErr = 65;    // EX_DATAERR: the input is invalid
inline constexpr int kNoInput = 66;    // EX_NOINPUT
inline constexpr int kCantCreat = 73;  // EX_CANTCREAT

/// The whole of argv[1], or nullopt after printing why to stderr and setting
/// `exit_code` (a wrong argument count or an unreadable file). `optional_args`
/// names what a tool accepts after the two files (e.g. "[SYMBOL]"), if anything.
inline std::optional<std::string> ReadInput(int argc, char** argv, std::string_view tool,
                                            int& exit_code, std::string_view optional_args = {}) {
  const int most = optional_args.empty() ? 3 : 4;
  if (argc < 3 || argc > most) {
    std::cerr << "usage: " << tool << " <input.yaml> <output.cpp>"
              << (optional_args.empty() ? "" : " ") << optional_args << "\n";
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

/// `text` as a C++ string literal: quotes and backslashes escaped, control
/// bytes as octal escapes (never run on into a following digit, unlike \x),
/// UTF-8 passed through (the generated source is UTF-8).
inline std::string CppString(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\%03o", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// Writes constant data as C++: every list becomes a named static array
/// (`constexpr T kN[] = {…};`, collected by Definitions(), which go before the
/// object that refers to them) and is referred to as `{kN, size}`, the shape
/// of util::RawList.
class ArrayEmitter {
 public:
  /// A named static array of `count` items, each already followed by a comma;
  /// returns `{kN, count}`.
  std::string Array(const std::string& type, const std::string& items, std::size_t count) {
    const int id = next_++;
    definitions_ << "constexpr " << type << " k" << id << "[] = {\n    " << items << "};\n";
    return "{k" + std::to_string(id) + ", " + std::to_string(count) + "}";
  }

  /// `list` as a static array of `type`, each element written by `item`; `{}`
  /// when the list is empty.
  template <typename List, typename Item>
  std::string ListOf(const std::string& type, const List& list, Item item,
                     const char* separator = ",\n    ") {
    if (list.empty()) return "{}";
    std::string items;
    for (const auto& element : list) items += item(element) + separator;
    return Array(type, items, list.size());
  }

  /// A list of C strings, or `{}` when empty.
  std::string Strings(const std::vector<std::string>& list) {
    return ListOf("const char*", list, CppString, ", ");
  }

  /// Appends `, .name = value` unless `value` is the empty list `{}`, so a
  /// designated initialiser names only what differs from the default.
  static void Field(std::string& out, const char* name, const std::string& value) {
    if (value != "{}") out += std::string(", .") + name + " = " + value;
  }

  std::string Definitions() const { return definitions_.str(); }

 private:
  std::ostringstream definitions_;
  int next_ = 0;
};

}  // namespace togmal::util::build_tool
