#pragma once
/// Claude Code's events after a call's decision, read as the call's outcome
/// (check/outcomes.h records them):
///
///   PostToolUse         the call ran                                → "ran"
///   PostToolUseFailure  it ran and failed                            → "failed"
///   PermissionDenied    auto mode's classifier refused it            → "refused"
///   PostToolBatch       every call of the batch has resolved: one
///                       that has no outcome yet neither ran nor
///                       failed, so the person (or the host) refused it → "refused"
///
/// A person's "no" in Claude Code's prompt fires no event of its own; the
/// batch is where it shows. These events never block: the hook prints
/// nothing and exits 0 whatever happens.

#include <optional>
#include <string_view>

#include "togmal/check/outcomes.h"

namespace togmal::hook {

/// The event in `input` if it is one of the four, else std::nullopt. Cheap for
/// the PreToolUse input of every call: the text is searched before it is parsed.
std::optional<check::CallOutcomes> ParseAfterToolUse(std::string_view input);

}  // namespace togmal::hook
