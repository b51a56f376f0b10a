#pragma once
// Shell functions a script defines. The classifier judges one command line
// and does not know that `build release` calls the script's own `build()`
// (unknown, L2) or that `format --check` is not Windows' `format` (L3); a
// function's body is classified where it is written, so a call to it and its
// `name() {` header are blanked out before a command is classified.

#include <set>
#include <string>
#include <string_view>

namespace togmal::scan {

/// The names of the functions `script` defines (`name() {`, `function name {`).
std::set<std::string, std::less<>> DefinedFunctions(std::string_view script);

/// `command` (one chunk of the script) with each call to one of `functions`
/// replaced by `echo` (by the no-op `:` when the name is shorter) and each
/// definition header by blanks; the arguments stay (what they expand still
/// runs) and the text keeps its length and lines, so positions still match
/// the file.
std::string WithoutLocalFunctions(std::string_view command,
                                  const std::set<std::string, std::less<>>& functions);

}  // namespace togmal::scan
