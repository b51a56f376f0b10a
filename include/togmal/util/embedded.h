#pragma once
/// The default configuration files from config/, compiled into the binary so
/// that togmal works with nothing installed beside it.

#include <optional>
#include <span>
#include <string_view>

namespace togmal::util {

struct EmbeddedFile {
  std::string_view name;  ///< base name, e.g. "rules.yaml"
  std::string_view data;  ///< the file's bytes
};

/// Every embedded file (generated at build time by cmake/EmbedFiles.cmake).
std::span<const EmbeddedFile> EmbeddedFiles();

/// The embedded file with this base name, if there is one.
std::optional<std::string_view> FindEmbeddedFile(std::string_view name);

}  // namespace togmal::util
