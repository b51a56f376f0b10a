#include "togmal/util/paths.h"

#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "togmal/util/config_file.h"

namespace togmal::util {
namespace {

std::filesystem::path XdgDir(const char* variable, const char* fallback) {
  if (const char* value = std::getenv(variable); value != nullptr && value[0] == '/') {
    return std::filesystem::path(value) / "togmal";
  }
  const std::filesystem::path home = HomeDir();
  if (home.empty()) return {};
  return home / fallback / "togmal";
}

/// The home field of `uid`'s line in /etc/passwd. Read directly: the binary
/// is linked statically, and glibc's getpwuid then loads NSS modules at run
/// time (a crash when their version differs). Users only a directory service
/// knows get no home, and so no user layer.
std::string HomeFromPasswdFile(uid_t uid) {
  auto text = ReadConfigFile("/etc/passwd", 4u << 20);
  if (!text || !*text) return {};
  std::string_view rest = **text;
  const std::string wanted = std::to_string(uid);
  while (!rest.empty()) {
    const std::size_t end = std::min(rest.find('\n'), rest.size());
    std::string_view line = rest.substr(0, end);
    rest.remove_prefix(std::min(end + 1, rest.size()));
    // name:password:uid:gid:gecos:home:shell
    std::string_view fields[7];
    std::size_t count = 0;
    while (count < 7) {
      const std::size_t colon = line.find(':');
      fields[count++] = line.substr(0, colon);
      if (colon == std::string_view::npos) break;
      line.remove_prefix(colon + 1);
    }
    if (count == 7 && fields[2] == wanted && fields[5].size() > 1 && fields[5][0] == '/') {
      return std::string(fields[5]);
    }
  }
  return {};
}

}  // namespace

std::string_view Home() {
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') return home;
  // Without HOME (a hook started by a stripped environment), the password
  // database names the home. Never the working directory: that is the
  // project, which the agent writes. Looked up once: it does not change.
  static const std::string from_passwd = HomeFromPasswdFile(::geteuid());
  return from_passwd;
}

std::filesystem::path HomeDir() { return std::filesystem::path(Home()); }

std::filesystem::path DataDir() { return XdgDir("XDG_DATA_HOME", ".local/share"); }

std::filesystem::path ConfigDir() { return XdgDir("XDG_CONFIG_HOME", ".config"); }

std::filesystem::path UserConfigFile(std::string_view name) {
  const std::filesystem::path dir = ConfigDir();
  return dir.empty() ? dir : dir / name;
}

std::filesystem::path UserDataFile(std::string_view name) {
  const std::filesystem::path dir = DataDir();
  return dir.empty() ? dir : dir / name;
}

}  // namespace togmal::util
