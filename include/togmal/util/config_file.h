#pragma once
/// Reading the configuration files people write (rules.yaml, settings.yaml,
/// classifier.yaml, detectors.yaml, a project's .togmal/rules.yaml). A
/// repository can ship any of these, so a read is bounded: only a regular
/// file is read (a FIFO would block the hook forever, a link to /dev/zero
/// would never end), and only up to a size cap.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

#include "togmal/util/result.h"

namespace togmal::util {

/// The largest configuration file read. The built-in files are 20–60 KB.
inline constexpr std::size_t kMaxConfigBytes = 2u << 20;

/// The file's contents; std::nullopt when nothing exists at `path`. Fails
/// when it exists but is not a regular file (also through a symbolic link),
/// is larger than `max_bytes`, or cannot be read; the message names the path.
Result<std::optional<std::string>> ReadConfigFile(const std::filesystem::path& path,
                                                  std::size_t max_bytes = kMaxConfigBytes);

}  // namespace togmal::util
