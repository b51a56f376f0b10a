#include "togmal/util/json_parse.h"

#include <optional>
#include <string>
#include <vector>

#include "plain_json_reader.h"

namespace togmal::util {

std::size_t JsonNestingDepth(std::string_view text) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > deepest) deepest = depth;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return deepest;
}

std::variant<nlohmann::json, JsonParseFailure> ParseJsonOrFailure(std::string_view text,
                                                                  std::size_t max_depth) {
  using Kind = JsonParseFailure::Kind;
  if (std::size_t depth = JsonNestingDepth(text); depth > max_depth) {
    return JsonParseFailure{Kind::kTooDeep, "JSON nested " + std::to_string(depth) +
                                                " levels deep (at most " +
                                                std::to_string(max_depth) + " are accepted)"};
  }
  // Well-formed text, nearly every line, is read without nlohmann's lexer;
  // anything else gets nlohmann's own value or error.
  if (std::optional<nlohmann::json> plain = ReadPlainJson(text)) return std::move(*plain);
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    return JsonParseFailure{Kind::kSyntax, e.what()};
  } catch (const nlohmann::json::out_of_range& e) {
    // e.g. 1e400: valid JSON syntax, but no double holds it.
    return JsonParseFailure{Kind::kOutOfRange, e.what()};
  } catch (const nlohmann::json::exception& e) {
    return JsonParseFailure{Kind::kUnusable, e.what()};
  }
}

Result<nlohmann::json> ParseJson(std::string_view text, std::size_t max_depth) {
  auto parsed = ParseJsonOrFailure(text, max_depth);
  if (auto* value = std::get_if<nlohmann::json>(&parsed)) return std::move(*value);
  const JsonParseFailure& failure = std::get<JsonParseFailure>(parsed);
  switch (failure.kind) {
    case JsonParseFailure::Kind::kTooDeep:
      return Fail(failure.detail);
    case JsonParseFailure::Kind::kSyntax:
      return Fail("not valid JSON: " + failure.detail);
    case JsonParseFailure::Kind::kOutOfRange:
      return Fail("a JSON value is out of range: " + failure.detail);
    case JsonParseFailure::Kind::kUnusable:
      break;
  }
  return Fail("not usable JSON: " + failure.detail);
}

bool JsonDeeperThan(const nlohmann::json& value, std::size_t max_depth) {
  // Iterative, so that the check itself cannot overflow the stack.
  std::vector<std::pair<const nlohmann::json*, std::size_t>> pending{{&value, 0}};
  while (!pending.empty()) {
    auto [node, depth] = pending.back();
    pending.pop_back();
    if (!node->is_structured()) continue;
    if (depth + 1 > max_depth) return true;
    for (const auto& child : *node) pending.emplace_back(&child, depth + 1);
  }
  return false;
}

}  // namespace togmal::util
