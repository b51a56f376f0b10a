#pragma once
// The redactor's knowledge of where secrets are, as constant tables generated
// from config/redaction.yaml at build time (compile_redaction.cpp): reading
// them costs a hook process nothing at start-up.

#include <cstdint>
#include <span>
#include <string_view>

namespace togmal::store::redaction {

/// The characters that make up a token after its prefix.
enum class TokenChars : std::uint8_t {
  kAlnum,       ///< A-Z a-z 0-9
  kWord,        ///< alnum and _
  kDashed,      ///< alnum, _ and -
  kAlnumDash,   ///< alnum and -
  kUpperDigit,  ///< A-Z 0-9
  kDotted,      ///< alnum, _, - and .
};

struct TokenPrefix {
  std::string_view prefix;
  TokenChars chars;
  std::uint16_t min_length;  ///< characters after the prefix
  std::uint16_t max_length;  ///< 0: any; else exactly min..max and no word character after
};

/// A command and its subcommands, e.g. {"gh", "secret", "set"}.
using CommandWords = std::span<const std::string_view>;

enum class OptionValue : std::uint8_t { kBoth, kAttached, kSeparate };

struct SecretOptions {
  std::span<const CommandWords> commands;  ///< empty: after any command
  std::span<const std::string_view> options;
  OptionValue value;
};

struct Setters {
  std::span<const CommandWords> commands;
  bool any_name;  ///< every value is a secret, not only a secret-named key's
};

struct SecretNames {
  std::span<const std::string_view> contains;
  std::span<const std::string_view> parts;
  std::span<const std::string_view> key_suffix_except;
  std::span<const std::string_view> members;
};

struct Tables {
  std::span<const TokenPrefix> token_prefixes;
  SecretNames secret_names;
  std::span<const SecretOptions> secret_options;
  std::span<const Setters> setters;
  /// The first word of every command above, sorted and unique.
  std::span<const std::string_view> command_names;
};

/// Generated from config/redaction.yaml.
extern const Tables kTables;

}  // namespace togmal::store::redaction
