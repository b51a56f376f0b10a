#pragma once
/// Where togmal keeps its files, following the XDG base directory spec.
/// Without a home directory (no absolute HOME and no password-database
/// entry) there is no user layer: these return an empty path, never one
/// relative to the working directory (the project, which the agent writes).

#include <filesystem>
#include <string_view>

namespace togmal::util {

/// $HOME when it is an absolute path, else the password database's home for
/// the effective user; empty when neither is known.
std::filesystem::path HomeDir();
/// The same as text, without building a path (the classifier asks often).
std::string_view Home();

/// $XDG_DATA_HOME/togmal, else HOME/.local/share/togmal; empty without a home.
std::filesystem::path DataDir();

/// $XDG_CONFIG_HOME/togmal, else HOME/.config/togmal; empty without a home.
std::filesystem::path ConfigDir();

/// A file in ConfigDir() / DataDir(); empty when the directory is unknown.
std::filesystem::path UserConfigFile(std::string_view name);
std::filesystem::path UserDataFile(std::string_view name);

}  // namespace togmal::util
