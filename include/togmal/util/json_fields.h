#pragma once
/// Reading fields of JSON that was stored or received (json or ordered_json): a field of the wrong
/// type (a hand-edited audit detail, an older writer) reads as absent, where
/// nlohmann's value() would throw and end the command that reads it.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace togmal::util {

/// `object[key]` when it is a string; else `fallback`.
template <typename Json = nlohmann::json>
std::string StringField(const Json& object, std::string_view key, std::string fallback = {}) {
  if (!object.is_object()) return fallback;
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->template get<std::string>()
                                                     : fallback;
}

/// `object[key]` when it is a string; else nothing (absent, null or of another type).
template <typename Json = nlohmann::json>
std::optional<std::string> OptionalStringField(const Json& object, std::string_view key) {
  if (!object.is_object()) return std::nullopt;
  const auto found = object.find(key);
  if (found == object.end() || !found->is_string()) return std::nullopt;
  return found->template get<std::string>();
}

/// `object[key]` when it is an integer; else `fallback`.
template <typename Json = nlohmann::json>
int64_t IntField(const Json& object, std::string_view key, int64_t fallback) {
  if (!object.is_object()) return fallback;
  const auto found = object.find(key);
  return found != object.end() && found->is_number_integer() ? found->template get<int64_t>()
                                                             : fallback;
}

/// `object[key]` when it is a boolean; else `fallback`.
template <typename Json = nlohmann::json>
bool BoolField(const Json& object, std::string_view key, bool fallback) {
  if (!object.is_object()) return fallback;
  const auto found = object.find(key);
  return found != object.end() && found->is_boolean() ? found->template get<bool>() : fallback;
}

}  // namespace togmal::util
