#pragma once
/// Which bytes a match of an RE2 pattern can contain. A pattern that cannot
/// match a '\n' has every match inside one line, and one that cannot match a
/// '.' or a ',' has every match between two of them, so the detector bank may
/// run it on the stretches of text between such bytes whose atoms allow a
/// match instead of on the whole text.

#include <bitset>
#include <string_view>

namespace togmal::analysis {

/// The ASCII bytes that some match of `pattern` (RE2 syntax, default options)
/// may contain; bytes >= 0x80 are always included. Conservative: anything it
/// does not fully understand (\p classes, POSIX classes, unknown escapes,
/// unterminated syntax) counts as every byte, the s flag anywhere lets `.`
/// match '\n', and letters always count in both cases (a pattern's (?i) is not
/// tracked). Zero-width assertions (^ $ \b \B \A \z) consume nothing: the bank
/// evaluates them with the whole text as context.
std::bitset<256> MatchableBytes(std::string_view pattern);

/// Whether some match of `pattern` may contain a '\n' (MatchableBytes).
bool MayMatchNewline(std::string_view pattern);

}  // namespace togmal::analysis
