#include "togmal/util/system_paths.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "togmal/util/config_file.h"

namespace togmal::util {
namespace {

// Whose it is and who may write it, for a message.
std::string Describe(const struct stat& info) {
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(info.st_mode & 07777));
  return "owner uid " + std::to_string(info.st_uid) + ", mode " + mode;
}

bool Trusted(const struct stat& info) {
  return info.st_uid == 0 && (info.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

}  // namespace

std::filesystem::path SystemConfigDir() { return TOGMAL_SYSTEM_CONFIG_DIR; }

std::filesystem::path SystemConfigFile(std::string_view name) {
  return SystemConfigDir() / std::string(name);
}

std::filesystem::path ClaudeManagedDir() { return TOGMAL_CLAUDE_MANAGED_DIR; }

std::string UntrustedSystemFile(const std::filesystem::path& path) {
  struct stat info {};
  // stat, not lstat: what counts is the file that would be read.
  if (::stat(path.c_str(), &info) != 0)
    return "cannot stat it: " + std::string(std::strerror(errno));
  if (!Trusted(info)) {
    return "it may be written by someone other than root (" + Describe(info) + ")";
  }
  // Whoever may write the folder may replace the file.
  const std::filesystem::path folder = path.parent_path();
  struct stat dir {};
  if (::stat(folder.c_str(), &dir) != 0) {
    return "cannot stat " + folder.string() + ": " + std::strerror(errno);
  }
  if (!Trusted(dir)) {
    return "its folder " + folder.string() + " may be written by someone other than root (" +
           Describe(dir) + ")";
  }
  return {};
}

Result<std::optional<std::string>> ReadSystemConfigFile(const std::filesystem::path& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<std::string>();
    return Fail("cannot read " + path.string() + ": " + std::strerror(errno));
  }
  if (std::string why = UntrustedSystemFile(path); !why.empty()) {
    return Fail(path.string() + ": not used as system policy: " + why +
                "; a system file must be owned by root and writable only by root");
  }
  auto text = ReadConfigFile(path);
  if (text && !*text) return Fail(path.string() + " vanished while it was read");
  return text;
}

}  // namespace togmal::util
