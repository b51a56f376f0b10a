#pragma once
/// The store's settings (`audit.*`, `taxonomy.*` in settings.yaml): the
/// embedded defaults, overridden by $XDG_CONFIG_HOME/togmal/settings.yaml.

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "togmal/util/result.h"
#include "togmal/util/settings_layers.h"

namespace togmal::store {

struct StoreSettings {
  int audit_retention_days = 90;       ///< audit.retention_days; 0 keeps everything
  bool audit_store_raw_input = false;  ///< audit.store_raw_input
  bool audit_sync_full = false;        ///< audit.sync: "full" (true) or "normal"
  int64_t taxonomy_capacity = 1000;    ///< taxonomy.capacity
};

/// `base` with the keys present in `yaml` applied. Errors name
/// `file_name`:line.
Result<StoreSettings> ParseStoreSettings(std::string_view yaml, std::string_view file_name,
                                         StoreSettings base = {});

/// `base` with one layer's keys applied.
Result<StoreSettings> StoreSettingsFrom(const util::SettingsLayer& layer, StoreSettings base);

/// The layers applied in order over the defaults.
Result<StoreSettings> StoreSettingsFrom(const std::vector<util::SettingsLayer>& layers);

/// The embedded settings.yaml, then the user's settings.yaml if it exists.
Result<StoreSettings> LoadStoreSettings();

}  // namespace togmal::store
