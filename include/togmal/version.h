#pragma once
/// togmal's version and the MCP protocol revisions it serves.

#include <array>
#include <string_view>

namespace togmal {

inline constexpr std::string_view kVersion = "0.1.0";

/// Newest first: the stateless modern revision, then the legacy ones.
inline constexpr std::array<std::string_view, 5> kProtocolVersions = {
    "2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

}  // namespace togmal
