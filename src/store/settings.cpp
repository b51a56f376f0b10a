#include "togmal/store/settings.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>
#include <string>

#include "togmal/util/embedded.h"
#include "togmal/util/paths.h"

namespace togmal::store {

namespace {

std::string Where(std::string_view file_name, const YAML::Node& node) {
  return std::string(file_name) + ":" + std::to_string(node.Mark().line + 1);
}

template <typename T>
Result<void> Read(const YAML::Node& section, const char* key, std::string_view file_name,
                  const char* what, T min, T max, T& out) {
  const YAML::Node node = section[key];
  if (!node) return {};
  try {
    const T value = node.as<T>();
    if (value < min || value > max) {
      return Fail(Where(file_name, node) + ": " + what + " must be " + std::to_string(min) +
                  " to " + std::to_string(max));
    }
    out = value;
    return {};
  } catch (const YAML::Exception&) {
    return Fail(Where(file_name, node) + ": " + what + " must be a number");
  }
}

}  // namespace

Result<StoreSettings> ParseStoreSettings(std::string_view yaml, std::string_view file_name,
                                         StoreSettings base) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::ParserException& e) {
    return Fail(std::string(file_name) + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root || root.IsNull()) return base;
  if (!root.IsMap()) return Fail(Where(file_name, root) + ": settings must be a mapping");
  if (const YAML::Node audit = root["audit"]; audit && audit.IsMap()) {
    if (auto read = Read<int>(audit, "retention_days", file_name, "audit.retention_days", 0,
                              365000, base.audit_retention_days);
        !read) {
      return Fail(read.error());
    }
    if (const YAML::Node raw = audit["store_raw_input"]; raw) {
      try {
        base.audit_store_raw_input = raw.as<bool>();
      } catch (const YAML::Exception&) {
        return Fail(Where(file_name, raw) + ": audit.store_raw_input must be true or false");
      }
    }
  }
  if (const YAML::Node taxonomy = root["taxonomy"]; taxonomy && taxonomy.IsMap()) {
    if (auto read = Read<int64_t>(taxonomy, "capacity", file_name, "taxonomy.capacity", 1,
                                  10000000, base.taxonomy_capacity);
        !read) {
      return Fail(read.error());
    }
  }
  return base;
}

Result<StoreSettings> LoadStoreSettings() {
  StoreSettings settings;
  if (auto embedded = util::FindEmbeddedFile("settings.yaml")) {
    auto parsed = ParseStoreSettings(*embedded, "settings.yaml (built in)", settings);
    if (!parsed) return Fail(parsed.error());
    settings = *parsed;
  }
  const std::filesystem::path user = util::ConfigDir() / "settings.yaml";
  std::error_code error;
  if (std::filesystem::exists(user, error)) {
    std::ifstream file(user);
    std::stringstream text;
    text << file.rdbuf();
    if (!file) return Fail("cannot read " + user.string());
    auto parsed = ParseStoreSettings(text.str(), user.string(), settings);
    if (!parsed) return Fail(parsed.error());
    settings = *parsed;
  }
  return settings;
}

}  // namespace togmal::store
