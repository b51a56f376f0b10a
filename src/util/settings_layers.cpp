#include "togmal/util/settings_layers.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "togmal/util/config_file.h"
#include "togmal/util/paths.h"
#include "togmal/util/system_paths.h"
#include "togmal/util/yaml.h"

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
  auto root = ParseYaml(text, source);
  if (!root) return Fail(root.error());
  return SettingsLayer{std::move(*root), std::move(source)};
}

SettingsLayers LoadSettingsLayers() {
  return LoadSettingsLayers(SystemConfigFile("settings.yaml"));
}

SettingsLayers LoadSettingsLayers(const std::filesystem::path& system_file) {
  SettingsLayers loaded;
  loaded.layers.push_back(
      {FromJson(nlohmann::json::parse(kCompiledSettings)), "settings.yaml (built in)"});
  const std::filesystem::path user = UserConfigFile("settings.yaml");
  auto text = ReadConfigFile(user);
  if (!text) {
    loaded.ignored.push_back(text.error());
  } else if (*text) {
    auto layer = ParseSettingsLayer(**text, user.string());
    if (layer) {
      loaded.layers.push_back(std::move(*layer));
    } else {
      loaded.ignored.push_back(layer.error() + " (the settings file is left out)");
    }
  }
  // Last, so that its keys win; a file that cannot be trusted or parsed is
  // named, which stops auto-approval everywhere (check::Judge).
  auto system = ReadSystemConfigFile(system_file);
  if (!system) {
    loaded.ignored.push_back(system.error());
  } else if (*system) {
    auto layer = ParseSettingsLayer(**system, system_file.string());
    if (layer) {
      layer->system = true;
      loaded.layers.push_back(std::move(*layer));
    } else {
      loaded.ignored.push_back(layer.error() + " (the system settings file is left out)");
    }
  }
  return loaded;
}

void WarnIgnoredSettings(const std::string& why) { spdlog::warn("{}", why); }

}  // namespace togmal::util
