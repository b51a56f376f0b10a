#pragma once
/// settings.yaml, read once: the embedded defaults (config/settings.yaml),
/// then $XDG_CONFIG_HOME/togmal/settings.yaml when it exists, then the
/// administrator's system file (util::SystemConfigFile("settings.yaml"),
/// /etc/togmal/settings.yaml, fixed at build time; read only when owned by
/// root and writable only by root). Applied last, the system file's keys win
/// over the user's; the `hook:` and `profile:` keys are a ceiling instead
/// (rules::DecisionSettingsFrom: the user may tighten them). Each module
/// reads its own section from these layers (store: `audit`, `taxonomy`;
/// rules: `hook`), so a process that needs several sections parses the YAML
/// once — parsing is most of what reading settings costs.

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "togmal/util/result.h"

namespace togmal::util {

/// One parsed settings file. `source` names it in messages
/// ("settings.yaml (built in)" or the user file's path).
struct SettingsLayer {
  YAML::Node root;
  std::string source;
  bool system = false;  ///< the administrator's file
};

/// Parses one settings file's text; a syntax error fails with source:line.
Result<SettingsLayer> ParseSettingsLayer(std::string_view text, std::string source);

/// The layers in force and the files left out.
struct SettingsLayers {
  std::vector<SettingsLayer> layers;  ///< the built-in layer first
  /// User or system files that exist but could not be read, trusted or parsed ("file:line:
  /// why"): they are left out, the built-in settings stay in force, and
  /// nothing is auto-approved until they are fixed (check::Judge).
  std::vector<std::string> ignored;
};

/// The built-in layer, then the user's when the file exists and is usable
/// (a regular file under util::kMaxConfigBytes that parses), then the
/// system file at `system_file` when it exists and may be trusted
/// (util::ReadSystemConfigFile). `system_file` is for the tests of the
/// layering only; the binary always reads util::SystemConfigFile.
SettingsLayers LoadSettingsLayers();
SettingsLayers LoadSettingsLayers(const std::filesystem::path& system_file);

/// Logs that a settings file was left out (spdlog, kept out of this header).
void WarnIgnoredSettings(const std::string& why);

/// `value` with each layer applied in order by `read(layer, value)`, which
/// returns Result<T> (a module's reader of its own section).
template <typename T, typename Read>
Result<T> ApplySettingsLayers(const std::vector<SettingsLayer>& layers, T value, Read read) {
  for (const SettingsLayer& layer : layers) {
    Result<T> applied = read(layer, value);
    if (!applied) return applied;
    value = std::move(*applied);
  }
  return value;
}

/// LoadSettingsLayers() applied over T's defaults; files left out are
/// logged as warnings.
template <typename T, typename Read>
Result<T> LoadSettings(Read read) {
  SettingsLayers loaded = LoadSettingsLayers();
  for (const std::string& why : loaded.ignored) WarnIgnoredSettings(why);
  return ApplySettingsLayers(loaded.layers, T{}, read);
}

}  // namespace togmal::util
