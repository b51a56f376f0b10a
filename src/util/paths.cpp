#include "togmal/util/paths.h"

#include <cstdlib>

namespace togmal::util {
namespace {

std::filesystem::path XdgDir(const char* variable, const char* fallback) {
  if (const char* value = std::getenv(variable); value != nullptr && value[0] == '/') {
    return std::filesystem::path(value) / "togmal";
  }
  const char* home = std::getenv("HOME");
  std::filesystem::path base = (home != nullptr && *home != '\0') ? home : ".";
  return base / fallback / "togmal";
}

}  // namespace

std::filesystem::path DataDir() { return XdgDir("XDG_DATA_HOME", ".local/share"); }

std::filesystem::path ConfigDir() { return XdgDir("XDG_CONFIG_HOME", ".config"); }

}  // namespace togmal::util
