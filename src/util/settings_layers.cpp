#include "togmal/util/settings_layers.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "togmal/util/paths.h"

namespace togmal::util {

/// config/settings.yaml as JSON, each scalar as its YAML text
/// (compile_settings.cpp, at build time).
extern const std::string_view kCompiledSettings;

namespace {

YAML::Node FromJson(const nlohmann::json& value) {
  if (value.is_object()) {
    YAML::Node node(YAML::NodeType::Map);
    // JSON keys are unique: insert without operator[]'s search of the map,
    // which compares every existing key by value (most of this function's cost).
    for (const auto& [key, item] : value.items()) node.force_insert(key, FromJson(item));
    return node;
  }
  if (value.is_array()) {
    YAML::Node node(YAML::NodeType::Sequence);
    for (const auto& item : value) node.push_back(FromJson(item));
    return node;
  }
  if (value.is_string()) return YAML::Node(value.get<std::string>());
  return YAML::Node(YAML::NodeType::Null);
}

}  // namespace

Result<SettingsLayer> ParseSettingsLayer(std::string_view text, std::string source) {
  try {
    return SettingsLayer{YAML::Load(std::string(text)), std::move(source)};
  } catch (const YAML::Exception& e) {
    return Fail(source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

Result<std::vector<SettingsLayer>> LoadSettingsLayers() {
  std::vector<SettingsLayer> layers;
  layers.push_back({FromJson(nlohmann::json::parse(kCompiledSettings)), "settings.yaml (built in)"});
  const std::filesystem::path user = ConfigDir() / "settings.yaml";
  std::ifstream file(user, std::ios::binary);
  if (file) {
    std::ostringstream text;
    text << file.rdbuf();
    if (!file) return Fail("cannot read " + user.string());
    auto layer = ParseSettingsLayer(text.str(), user.string());
    if (!layer) return Fail(layer.error());
    layers.push_back(std::move(*layer));
  }
  return layers;
}

}  // namespace togmal::util
