#include "togmal/store/stored_input.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include "sha256.h"
#include "togmal/store/redaction.h"
#include "togmal/util/json_dump.h"
#include "togmal/util/text.h"

namespace togmal::store {
namespace {

using json = nlohmann::json;

// The longest JSON text of a number, true, false or null
// ("-1.2345678901234567e-308").
constexpr std::size_t kScalarTextBound = 24;

// How far past the edge a cut string is redacted, so that a secret crossing
// the edge is still recognised whole before it is cut.
constexpr std::size_t kRedactionOverlap = 256;

// An upper bound of the length of `text` as a JSON string: exact for ASCII,
// with room for escapes and for U+FFFD replacing an invalid byte. Stops at
// `limit` + 1 (every byte takes at least one).
std::size_t StringTextBound(std::string_view text, std::size_t limit) {
  if (text.size() > limit) return limit + 1;
  std::size_t size = 2;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte == '"' || byte == '\\') {
      size += 2;
    } else if (byte < 0x20) {
      size += 6;  // \u00XX
    } else if (byte >= 0x80) {
      size += 3;  // as is when valid; U+FFFD (3 bytes) when not
    } else {
      size += 1;
    }
  }
  return size;
}

// Adds an upper bound of `value`'s JSON text length to `size`, stopping once
// `size` passes `limit` (a 300,000-key object costs no more than a small one).
void AddTextBound(const json& value, std::size_t limit, std::size_t& size) {
  if (size > limit) return;
  switch (value.type()) {
    case json::value_t::string:
      size += StringTextBound(value.get_ref<const std::string&>(), limit);
      return;
    case json::value_t::object:
      size += 2;
      for (auto member = value.begin(); member != value.end() && size <= limit; ++member) {
        size += StringTextBound(member.key(), limit) + 2;  // the colon and a comma
        AddTextBound(member.value(), limit, size);
      }
      return;
    case json::value_t::array:
      size += 2;
      for (auto element = value.begin(); element != value.end() && size <= limit; ++element) {
        size += 1;
        AddTextBound(*element, limit, size);
      }
      return;
    default:
      size += kScalarTextBound;
      return;
  }
}

void Spend(std::size_t& budget, std::size_t amount) { budget -= std::min(budget, amount); }

// The beginning of `value` in at most about `budget` bytes of JSON text: the
// members and elements that fit, in order, and a note of how many did not;
// the string at the edge shortened.
json Cut(const json& value, std::size_t& budget) {
  switch (value.type()) {
    case json::value_t::string: {
      const std::string& text = value.get_ref<const std::string&>();
      const std::size_t size = StringTextBound(text, budget);
      if (size <= budget) {
        Spend(budget, size);
        return text;
      }
      const std::size_t keep = budget;
      budget = 0;
      const std::string_view around = std::string_view(text).substr(0, keep + kRedactionOverlap);
      return util::Shorten(RedactSecrets(around), keep);
    }
    case json::value_t::object: {
      json kept = json::object();
      Spend(budget, 2);
      std::size_t left = value.size();
      for (auto member = value.begin(); member != value.end(); ++member, --left) {
        const std::size_t key_size = StringTextBound(member.key(), budget) + 2;
        if (key_size >= budget) break;
        Spend(budget, key_size);
        kept[member.key()] = Cut(member.value(), budget);
      }
      if (left > 0) kept["(cut)"] = std::to_string(left) + " more members not kept";
      return kept;
    }
    case json::value_t::array: {
      json kept = json::array();
      Spend(budget, 2);
      std::size_t left = value.size();
      for (auto element = value.begin(); element != value.end() && budget > 1; ++element, --left) {
        Spend(budget, 1);
        kept.push_back(Cut(*element, budget));
      }
      if (left > 0) kept.push_back("(cut: " + std::to_string(left) + " more elements not kept)");
      return kept;
    }
    default:
      Spend(budget, kScalarTextBound);
      return value;
  }
}

}  // namespace

std::optional<json> OversizeInputRecord(const json& input) {
  std::size_t bound = 0;
  AddTextBound(input, kMaxStoredInputBytes, bound);
  if (bound <= kMaxStoredInputBytes) return std::nullopt;
  // The bound can overcount (escapes, non-ASCII): past it, measure exactly.
  const std::string text = util::DumpJson(input);
  if (text.size() <= kMaxStoredInputBytes) return std::nullopt;
  std::size_t budget = kStoredInputCutBytes;
  return json{{"oversize_input",
               {{"bytes", text.size()}, {"sha256", Sha256Hex(text)}, {"cut", Cut(input, budget)}}}};
}

std::string TextDigest(std::string_view text) { return Sha256Hex(text); }

json BoundedInput(const json& input) {
  std::optional<json> record = OversizeInputRecord(input);
  return record ? std::move(*record) : input;
}

}  // namespace togmal::store
