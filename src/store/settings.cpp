#include "togmal/store/settings.h"

#include <yaml-cpp/yaml.h>

#include <string>

#include "togmal/util/yaml.h"

namespace togmal::store {

namespace {

using util::YamlWhere;

template <typename T>
Result<void> Read(const YAML::Node& section, const char* key, std::string_view file_name,
                  const char* what, T min, T max, T& out) {
  return util::ReadBoundedNumber(section, key, file_name, what, min, max, out);
}

}  // namespace

Result<StoreSettings> StoreSettingsFrom(const util::SettingsLayer& layer, StoreSettings base) {
  const YAML::Node& root = layer.root;
  const std::string& file_name = layer.source;
  if (!root || root.IsNull()) return base;
  if (!root.IsMap()) return Fail(YamlWhere(file_name, root) + ": settings must be a mapping");
  try {
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
          return Fail(YamlWhere(file_name, raw) + ": audit.store_raw_input must be true or false");
        }
      }
      if (const YAML::Node sync = audit["sync"]; sync) {
        const std::string value = sync.IsScalar() ? sync.Scalar() : "";
        if (value != "normal" && value != "full") {
          return Fail(YamlWhere(file_name, sync) + ": audit.sync must be normal or full");
        }
        base.audit_sync_full = value == "full";
      }
    }
    if (const YAML::Node taxonomy = root["taxonomy"]; taxonomy && taxonomy.IsMap()) {
      if (auto read = Read<int64_t>(taxonomy, "capacity", file_name, "taxonomy.capacity", 1,
                                    10000000, base.taxonomy_capacity);
          !read) {
        return Fail(read.error());
      }
    }
  } catch (const YAML::Exception& e) {
    return Fail(file_name + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return base;
}

namespace {
// The single-layer reader, named so it can be passed past the overload set.
Result<StoreSettings> ReadStoreSections(const util::SettingsLayer& layer, StoreSettings base) {
  return StoreSettingsFrom(layer, base);
}
}  // namespace

Result<StoreSettings> StoreSettingsFrom(const std::vector<util::SettingsLayer>& layers) {
  return util::ApplySettingsLayers(layers, StoreSettings{}, ReadStoreSections);
}

Result<StoreSettings> ParseStoreSettings(std::string_view yaml, std::string_view file_name,
                                         StoreSettings base) {
  auto layer = util::ParseSettingsLayer(yaml, std::string(file_name));
  if (!layer) return Fail(layer.error());
  return StoreSettingsFrom(*layer, base);
}

Result<StoreSettings> LoadStoreSettings() {
  return util::LoadSettings<StoreSettings>(ReadStoreSections);
}

}  // namespace togmal::store
