// What a host's own trust settings say of a project, read (never written):
// a host that ignores a project's settings until the person trusts the
// folder would otherwise look installed and run nothing.
#include <algorithm>

#include "togmal/install/installer.h"
#include "togmal/install/json_file.h"

namespace togmal::install {
namespace {

namespace fs = std::filesystem;

// `inner` is `outer` or a folder below it.
bool Within(const fs::path& inner, const fs::path& outer) {
  const auto [end, unused] = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
  (void)unused;
  return end == outer.end();
}

}  // namespace

std::optional<bool> GeminiFolderTrusted(const Places& places) {
  auto settings = LoadJsonFile(places.home / ".gemini/settings.json");
  if (!settings) return std::nullopt;
  const OrderedJson::json_pointer enabled("/security/folderTrust/enabled");
  if (!settings->value.contains(enabled) || settings->value[enabled] != true) return std::nullopt;
  auto rules = LoadJsonFile(places.home / ".gemini/trustedFolders.json");
  if (!rules) return false;
  std::error_code error;
  const fs::path project = fs::weakly_canonical(places.project, error).lexically_normal();
  for (const auto& [folder, level] : rules->value.items()) {
    if (!level.is_string()) continue;
    const std::string trust = level.get<std::string>();
    fs::path scope = fs::path(folder).lexically_normal();
    if (trust == "TRUST_PARENT") {
      scope = scope.parent_path();
    } else if (trust != "TRUST_FOLDER") {
      continue;
    }
    if (Within(project, scope)) return true;
  }
  return false;
}

}  // namespace togmal::install
