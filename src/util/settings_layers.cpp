#include "togmal/util/settings_layers.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "togmal/util/embedded.h"
#include "togmal/util/paths.h"

namespace togmal::util {

Result<SettingsLayer> ParseSettingsLayer(std::string_view text, std::string source) {
  try {
    return SettingsLayer{YAML::Load(std::string(text)), std::move(source)};
  } catch (const YAML::Exception& e) {
    return Fail(source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

Result<std::vector<SettingsLayer>> LoadSettingsLayers() {
  std::vector<SettingsLayer> layers;
  if (auto embedded = FindEmbeddedFile("settings.yaml")) {
    auto layer = ParseSettingsLayer(*embedded, "settings.yaml (built in)");
    if (!layer) return Fail(layer.error());
    layers.push_back(std::move(*layer));
  }
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
