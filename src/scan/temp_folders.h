#pragma once
// Temporary files and folders a script makes for itself. `d=$(mktemp -d)` …
// `rm -rf "$d"` (often in a `trap … EXIT` cleanup) removes what the script
// created a moment before; the classifier, which sees one command line,
// cannot know what `$d` holds and judges `rm -rf "$d"` as L3. Only a scan has
// the whole script, so only the scan blanks such removals out; the hook
// still judges a live `rm -rf "$d"` on its own.

#include <set>
#include <string>
#include <string_view>

namespace togmal::scan {

/// The variables `script` sets only to the output of `mktemp` (a folder with
/// `-d`, or a file), or to nothing (`d=` before a trap is set). A variable
/// that is also set to anything else is left out.
std::set<std::string, std::less<>> TempVariables(std::string_view script);

/// `command` (one chunk of the script) with each `rm` whose targets are all
/// exactly one of `variables` (`$d`, `"$d"`, `${d}`, `"${d}"`; options and a
/// `2>/dev/null` allowed) replaced by the no-op `:` and blanks. `rm -rf
/// "$d"/*` or `"$d/sub"` is kept: with an empty `$d` it reaches `/`. The text
/// keeps its length and lines.
std::string WithoutTempRemovals(std::string_view command,
                                const std::set<std::string, std::less<>>& variables);

}  // namespace togmal::scan
