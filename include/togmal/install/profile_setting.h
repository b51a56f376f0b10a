#pragma once
/// `togmal install HOST --profile NAME`: the `profile:` line of the user's
/// settings.yaml, set without disturbing the rest of the file.

#include <string>
#include <string_view>

namespace togmal::install {

/// `text` (a settings.yaml, possibly empty) with its top-level `profile:` set
/// to `profile`: the existing line's value replaced (its comment kept), or a
/// line appended. Everything else stays byte for byte.
std::string WithProfile(std::string_view text, std::string_view profile);

}  // namespace togmal::install
