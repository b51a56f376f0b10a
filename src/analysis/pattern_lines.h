#pragma once
/// Whether an RE2 pattern can match text that holds a '\n'. A pattern that
/// cannot has every match inside one line, so the detector bank may run it on
/// the lines whose atoms allow a match instead of on the whole text.

#include <string_view>

namespace togmal::analysis {

/// False only when no match of `pattern` (RE2 syntax, default options:
/// `.` without the s flag excludes '\n', classes are as written) can contain
/// a '\n'. Conservative: anything it does not fully understand (\p classes,
/// POSIX classes, the s flag anywhere, octal or hex escapes it cannot read)
/// counts as "may". Zero-width assertions (^ $ \b \A \z) consume nothing and
/// do not count: the bank evaluates them with the whole text as context.
bool MayMatchNewline(std::string_view pattern);

}  // namespace togmal::analysis
