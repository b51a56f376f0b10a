#pragma once
/// A unified diff of two texts, for `togmal install --dry-run`.

#include <string>
#include <string_view>

namespace togmal::install {

/// `before` → `after` as a unified diff (3 lines of context) with `label`
/// in the ---/+++ header; empty when they are equal.
std::string UnifiedDiff(std::string_view before, std::string_view after, std::string_view label);

}  // namespace togmal::install
