#include "togmal/ship/settings.h"

#include <yaml-cpp/yaml.h>

#include "togmal/util/yaml.h"

namespace togmal::ship {

namespace {

using util::YamlWhere;

Result<void> ReadInt(const YAML::Node& section, const char* key, const std::string& file_name,
                     int min, int max, int& out) {
  return util::ReadBoundedNumber(section, key, file_name, std::string("ship.") + key, min, max,
                                 out);
}

Result<void> ReadText(const YAML::Node& section, const char* key, const std::string& file_name,
                      std::string& out) {
  const YAML::Node node = section[key];
  if (!node) return {};
  if (node.IsNull()) {
    out.clear();
    return {};
  }
  if (!node.IsScalar())
    return Fail(YamlWhere(file_name, node) + ": ship." + key + " must be a text");
  out = node.Scalar();
  return {};
}

}  // namespace

Result<ShipSettings> ShipSettingsFrom(const util::SettingsLayer& layer, ShipSettings base) {
  const YAML::Node& root = layer.root;
  if (!root || !root.IsMap()) return base;
  const YAML::Node ship = root["ship"];
  if (!ship || ship.IsNull()) return base;
  if (!ship.IsMap()) return Fail(YamlWhere(layer.source, ship) + ": ship must be a mapping");
  try {
    for (auto read :
         {ReadText(ship, "otlp", layer.source, base.otlp),
          ReadText(ship, "syslog", layer.source, base.syslog),
          ReadInt(ship, "interval_seconds", layer.source, 1, 86400, base.interval_seconds),
          ReadInt(ship, "batch", layer.source, 1, 10000, base.batch),
          ReadInt(ship, "retries", layer.source, 0, 20, base.retries)}) {
      if (!read) return Fail(read.error());
    }
  } catch (const YAML::Exception& e) {
    return Fail(layer.source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return base;
}

Result<ShipSettings> LoadShipSettings() {
  return util::LoadSettings<ShipSettings>([](const util::SettingsLayer& layer, ShipSettings base) {
    return ShipSettingsFrom(layer, std::move(base));
  });
}

}  // namespace togmal::ship
