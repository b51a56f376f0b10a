#pragma once
/// Rules that togmal itself writes into the user's rule file (`togmal allow
/// CODE --always`). The file is the user's: what is there (comments, order,
/// layout) stays, the rule is appended as one marked list item, and removal
/// takes out exactly that item. Only the user layer is ever written: a
/// project's rules may only tighten.

#include <filesystem>
#include <string>
#include <string_view>

#include "togmal/util/result.h"

namespace togmal::rules {

/// Appends `item` (YAML lines of one rule, each indented by two spaces, the
/// first `  - id: ID`) under a marker comment (`  # MARKER`) to the `rules:`
/// list of `file`, creating the file if needed. Refuses a file whose last
/// top-level key is not a block `rules:` list (it names the file and why).
/// The result must load as a rule file, or the file is left as it was.
Result<void> AppendUserRule(const std::filesystem::path& file, std::string_view marker,
                            std::string_view item);

/// Removes the item `  - id: ID` (and its marker comment) that AppendUserRule
/// added. Returns false when the file has no such item.
Result<bool> RemoveUserRule(const std::filesystem::path& file, std::string_view id);

}  // namespace togmal::rules
