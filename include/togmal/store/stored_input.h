#pragma once
/// How much of a tool's input an audit entry keeps. An input whose JSON text
/// is at most kMaxStoredInputBytes is stored whole (redacted). A bigger one,
/// which only a broken or hostile agent sends (a 50 MB command, 300,000
/// keys), is stored as
///
///   {"oversize_input": {"bytes": N, "sha256": "…", "cut": …}}
///
/// its size, the SHA-256 of its whole JSON text (sorted keys, no spaces: what
/// `util::DumpJson` writes, so a kept copy of the original can be matched),
/// and its beginning cut to about kStoredInputCutBytes, keeping its shape
/// (the first members and elements, the string at the edge shortened) so that
/// the redactor still sees which value belongs to which key. The row, and the
/// time to write it, then stay bounded whatever arrived.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace togmal::store {

/// The largest input (JSON text bytes) an audit entry stores whole.
inline constexpr std::size_t kMaxStoredInputBytes = 64u << 10;

/// The longest text field an audit entry stores (session, tool name, and in
/// a decision's detail the cwd and the host's ids); a longer one, which only
/// a broken or hostile agent sends, is cut (util::Shorten, ending in "…").
inline constexpr std::size_t kMaxStoredFieldBytes = 4096;

/// About how much of an oversize input is kept.
inline constexpr std::size_t kStoredInputCutBytes = 4u << 10;

/// The oversize record of `input` (above) when its JSON text is longer than
/// kMaxStoredInputBytes, else std::nullopt (the input is stored whole). Cheap
/// for a small input however it is shaped: counting stops at the cap. The
/// string cut at the edge is redacted before it is cut, so that half a token
/// does not slip past the redactor.
std::optional<nlohmann::json> OversizeInputRecord(const nlohmann::json& input);

/// hex(SHA-256(text)), as an oversize record carries it: for a caller that
/// keeps only a cut of raw text (the hook's input that is not JSON).
std::string TextDigest(std::string_view text);

/// `input`, or its oversize record.
nlohmann::json BoundedInput(const nlohmann::json& input);

}  // namespace togmal::store
