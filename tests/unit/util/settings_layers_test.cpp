// The built-in settings layer comes from config/settings.yaml compiled to JSON
// at build time (util/compile_settings.cpp); it must hold exactly what parsing
// the YAML gives, key for key, or a setting could silently fall back to a
// reader's default.

#include "togmal/util/settings_layers.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "process.h"
#include "scoped_env.h"
#include "togmal/util/embedded.h"

namespace togmal::util {
namespace {

// Differences between two YAML trees, as "path: what" lines ("" if none).
// Map order does not matter; scalars compare as their text.
std::string Differences(const YAML::Node& a, const YAML::Node& b, const std::string& path) {
  if (a.Type() != b.Type()) return path + ": different kinds\n";
  switch (a.Type()) {
    case YAML::NodeType::Scalar:
      return a.Scalar() == b.Scalar() ? "" : path + ": " + a.Scalar() + " vs " + b.Scalar() + "\n";
    case YAML::NodeType::Sequence: {
      if (a.size() != b.size()) return path + ": lengths differ\n";
      std::string out;
      for (std::size_t i = 0; i < a.size(); ++i) {
        out += Differences(a[i], b[i], path + "[" + std::to_string(i) + "]");
      }
      return out;
    }
    case YAML::NodeType::Map: {
      std::set<std::string> keys;
      for (const auto& item : a) keys.insert(item.first.Scalar());
      for (const auto& item : b) keys.insert(item.first.Scalar());
      std::string out;
      for (const std::string& key : keys) {
        if (!a[key] || !b[key]) {
          out += path + "." + key + ": only on one side\n";
        } else {
          out += Differences(a[key], b[key], path + "." + key);
        }
      }
      return out;
    }
    default:
      return "";
  }
}

TEST(SettingsLayers, CompiledBuiltinLayerIsTheEmbeddedYaml) {
  togmal::testing::ScopedEnv config("XDG_CONFIG_HOME", "/nonexistent/togmal-test");
  SettingsLayers loaded = LoadSettingsLayers();
  EXPECT_TRUE(loaded.ignored.empty());
  ASSERT_EQ(loaded.layers.size(), 1u) << "no user file here";
  const YAML::Node parsed = YAML::Load(std::string(*FindEmbeddedFile("settings.yaml")));
  EXPECT_EQ(Differences(loaded.layers[0].root, parsed, "settings"), "");
  EXPECT_TRUE(loaded.layers[0].root["audit"]["sync"]) << "a key the readers have defaults for";
}

TEST(SettingsLayers, AnUnusableUserFileIsLeftOutAndNamed) {
  togmal::testing::TempDir dir;
  togmal::testing::ScopedEnv config("XDG_CONFIG_HOME", dir.path().c_str());
  std::filesystem::create_directories(dir.path() + "/togmal");
  { std::ofstream(dir.path() + "/togmal/settings.yaml") << "hook: {levels: [\n"; }
  SettingsLayers broken = LoadSettingsLayers();
  EXPECT_EQ(broken.layers.size(), 1u);
  ASSERT_EQ(broken.ignored.size(), 1u);
  EXPECT_NE(broken.ignored[0].find("settings.yaml:"), std::string::npos) << broken.ignored[0];
  std::filesystem::remove(dir.path() + "/togmal/settings.yaml");
  std::filesystem::create_symlink("/dev/zero", dir.path() + "/togmal/settings.yaml");
  SettingsLayers device = LoadSettingsLayers();
  ASSERT_EQ(device.ignored.size(), 1u);
  EXPECT_NE(device.ignored[0].find("not a regular file"), std::string::npos) << device.ignored[0];
}

TEST(SettingsLayers, TheComparisonSeesAMissingKey) {
  const YAML::Node full = YAML::Load("audit: {sync: normal, retention_days: 90}");
  const YAML::Node partial = YAML::Load("audit: {retention_days: 90}");
  EXPECT_EQ(Differences(full, partial, "s"), "s.audit.sync: only on one side\n");
  EXPECT_EQ(Differences(full, YAML::Load("audit: {sync: full, retention_days: 90}"), "s"),
            "s.audit.sync: normal vs full\n");
}

}  // namespace
}  // namespace togmal::util
