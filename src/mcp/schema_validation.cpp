#include "togmal/mcp/schema_validation.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "togmal/util/json_dump.h"
#include "togmal/util/text.h"

namespace togmal::mcp {
namespace {

using json = nlohmann::json;

std::string TypeName(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "integer";
    case json::value_t::number_float:
      return "number";
    case json::value_t::string:
      return "string";
    case json::value_t::array:
      return "array";
    case json::value_t::object:
      return "object";
    default:
      return "unknown";
  }
}

bool IsIntegral(const json& value) {
  if (value.is_number_integer()) return true;
  if (!value.is_number_float()) return false;
  double number = value.get<double>();
  return std::isfinite(number) && std::floor(number) == number;
}

bool HasType(const json& value, std::string_view type) {
  if (type == "string") return value.is_string();
  if (type == "integer") return IsIntegral(value);
  if (type == "number") return value.is_number();
  if (type == "boolean") return value.is_boolean();
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "null") return value.is_null();
  return false;
}

/// Counts code points, as JSON Schema's length keywords do.
std::size_t CodePoints(const std::string& text) {
  std::size_t count = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
  }
  return count;
}

std::string Join(const json& values) {
  std::string out;
  for (const json& value : values) {
    if (!out.empty()) out += ", ";
    out += value.dump();
  }
  return out;
}

/// A value as shown in an error message: one line, cut after 60 bytes.
std::string Shown(const json& value) { return util::Shorten(util::DumpJson(value), 60); }

std::string ChildPath(const std::string& path, const std::string& key) {
  bool plain = !key.empty();
  for (char c : key) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) plain = false;
  }
  return plain ? path + "." + key : path + "[" + json(key).dump() + "]";
}

/// Where a value sits: the names and indexes from the root, spelled out only
/// when a message needs them. Spelling each member's path for every call cost
/// as much as the checks themselves, for messages seldom sent.
class Path {
 public:
  explicit Path(const std::string& root) : root_(&root) {}

  Path Member(const std::string& key) const {
    Path member(*root_);
    member.parent_ = this;
    member.key_ = &key;
    return member;
  }
  Path Item(std::size_t index) const {
    Path item(*root_);
    item.parent_ = this;
    item.index_ = index;
    return item;
  }

  std::string Text() const {
    if (parent_ == nullptr) return *root_;
    if (key_ != nullptr) return ChildPath(parent_->Text(), *key_);
    return parent_->Text() + "[" + std::to_string(index_) + "]";
  }

 private:
  const std::string* root_;
  const Path* parent_ = nullptr;
  const std::string* key_ = nullptr;  ///< a member's name; null for an array item
  std::size_t index_ = 0;
};

std::string FormatNumber(const json& number) { return number.dump(); }

/// Reads a non-negative integer keyword (minLength, maxItems, ...).
bool CountKeyword(const json& schema, const char* keyword, std::size_t* count) {
  auto it = schema.find(keyword);
  if (it == schema.end() || !it->is_number_integer() || it->get<std::int64_t>() < 0) return false;
  *count = it->get<std::size_t>();
  return true;
}

Result<void> Validate(const json& schema, const json& value, const Path& path);

Result<void> CheckType(const json& schema, const json& value, const Path& path) {
  auto type = schema.find("type");
  if (type == schema.end()) return {};
  if (type->is_string()) {
    if (!HasType(value, type->get_ref<const std::string&>())) {
      return Fail(path.Text() + ": expected " + type->get<std::string>() + ", got " +
                  TypeName(value));
    }
  } else if (type->is_array()) {
    for (const json& option : *type) {
      if (option.is_string() && HasType(value, option.get_ref<const std::string&>())) return {};
    }
    std::string names;
    for (const json& option : *type) {
      if (!names.empty()) names += " or ";
      names += option.is_string() ? option.get<std::string>() : option.dump();
    }
    return Fail(path.Text() + ": expected " + names + ", got " + TypeName(value));
  }
  return {};
}

Result<void> CheckNumber(const json& schema, const json& value, const Path& path) {
  double number = value.get<double>();
  if (auto it = schema.find("minimum");
      it != schema.end() && it->is_number() && number < it->get<double>()) {
    return Fail(path.Text() + ": must be >= " + FormatNumber(*it) + ", got " + value.dump());
  }
  if (auto it = schema.find("maximum");
      it != schema.end() && it->is_number() && number > it->get<double>()) {
    return Fail(path.Text() + ": must be <= " + FormatNumber(*it) + ", got " + value.dump());
  }
  if (auto it = schema.find("exclusiveMinimum");
      it != schema.end() && it->is_number() && number <= it->get<double>()) {
    return Fail(path.Text() + ": must be > " + FormatNumber(*it) + ", got " + value.dump());
  }
  if (auto it = schema.find("exclusiveMaximum");
      it != schema.end() && it->is_number() && number >= it->get<double>()) {
    return Fail(path.Text() + ": must be < " + FormatNumber(*it) + ", got " + value.dump());
  }
  return {};
}

Result<void> CheckString(const json& schema, const json& value, const Path& path) {
  std::size_t length = CodePoints(value.get_ref<const std::string&>());
  std::size_t limit = 0;
  if (CountKeyword(schema, "minLength", &limit) && length < limit) {
    return Fail(path.Text() + ": must be at least " + std::to_string(limit) +
                " characters long, got " + std::to_string(length));
  }
  if (CountKeyword(schema, "maxLength", &limit) && length > limit) {
    return Fail(path.Text() + ": must be at most " + std::to_string(limit) +
                " characters long, got " + std::to_string(length));
  }
  return {};
}

Result<void> CheckArray(const json& schema, const json& value, const Path& path) {
  std::size_t limit = 0;
  if (CountKeyword(schema, "minItems", &limit) && value.size() < limit) {
    return Fail(path.Text() + ": must have at least " + std::to_string(limit) + " items, got " +
                std::to_string(value.size()));
  }
  if (CountKeyword(schema, "maxItems", &limit) && value.size() > limit) {
    return Fail(path.Text() + ": must have at most " + std::to_string(limit) + " items, got " +
                std::to_string(value.size()));
  }
  if (auto items = schema.find("items"); items != schema.end() && items->is_object()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (auto checked = Validate(*items, value[i], path.Item(i)); !checked) {
        return checked;
      }
    }
  }
  return {};
}

Result<void> CheckObject(const json& schema, const json& value, const Path& path) {
  if (auto required = schema.find("required"); required != schema.end() && required->is_array()) {
    for (const json& name : *required) {
      if (name.is_string() && !value.contains(name.get_ref<const std::string&>())) {
        return Fail(path.Text() + ": missing required property " + name.dump());
      }
    }
  }
  const json* properties = nullptr;
  if (auto it = schema.find("properties"); it != schema.end() && it->is_object()) {
    properties = &*it;
  }
  auto additional = schema.find("additionalProperties");
  for (const auto& [key, member] : value.get_ref<const json::object_t&>()) {
    const Path member_path = path.Member(key);
    if (properties != nullptr) {
      if (auto property = properties->find(key); property != properties->end()) {
        if (auto checked = Validate(*property, member, member_path); !checked) return checked;
        continue;
      }
    }
    if (additional == schema.end()) continue;
    if (additional->is_boolean() && !additional->get<bool>()) {
      std::string allowed;
      if (properties != nullptr) {
        for (const auto& [name, ignored] : properties->items()) {
          allowed += allowed.empty() ? "" : ", ";
          allowed += name;
        }
      }
      return Fail(
          path.Text() + ": unexpected property " + json(key).dump() +
          (allowed.empty() ? " (no properties are allowed)" : " (allowed: " + allowed + ")"));
    }
    if (additional->is_object()) {
      if (auto checked = Validate(*additional, member, member_path); !checked) return checked;
    }
  }
  return {};
}

Result<void> Validate(const json& schema, const json& value, const Path& path) {
  if (schema.is_boolean()) {
    if (!schema.get<bool>()) return Fail(path.Text() + ": no value is allowed here");
    return {};
  }
  if (!schema.is_object()) return {};
  if (auto checked = CheckType(schema, value, path); !checked) return checked;
  if (auto it = schema.find("const"); it != schema.end() && *it != value) {
    return Fail(path.Text() + ": must be " + Shown(*it) + ", got " + Shown(value));
  }
  if (auto it = schema.find("enum"); it != schema.end() && it->is_array()) {
    bool found = false;
    for (const json& option : *it) found = found || option == value;
    if (!found)
      return Fail(path.Text() + ": must be one of " + Join(*it) + ", got " + Shown(value));
  }
  if (auto it = schema.find("anyOf"); it != schema.end() && it->is_array() && !it->empty()) {
    std::string first_error;
    bool matched = false;
    for (const json& option : *it) {
      auto checked = Validate(option, value, path);
      if (checked) {
        matched = true;
        break;
      }
      if (first_error.empty()) first_error = checked.error();
    }
    if (!matched)
      return Fail(path.Text() + ": matches none of the allowed forms (" + first_error + ")");
  }
  if (value.is_number()) return CheckNumber(schema, value, path);
  if (value.is_string()) return CheckString(schema, value, path);
  if (value.is_array()) return CheckArray(schema, value, path);
  if (value.is_object()) return CheckObject(schema, value, path);
  return {};
}

}  // namespace

Result<void> ValidateAgainstSchema(const nlohmann::json& schema, const nlohmann::json& value,
                                   const std::string& path) {
  return Validate(schema, value, Path(path));
}

}  // namespace togmal::mcp
