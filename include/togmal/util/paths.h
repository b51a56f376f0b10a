#pragma once
/// Where togmal keeps its files, following the XDG base directory spec.

#include <filesystem>

namespace togmal::util {

/// $XDG_DATA_HOME/togmal, else ~/.local/share/togmal.
std::filesystem::path DataDir();

/// $XDG_CONFIG_HOME/togmal, else ~/.config/togmal.
std::filesystem::path ConfigDir();

}  // namespace togmal::util
