#pragma once
// Runs the built binary where the build-time system paths (/etc/togmal,
// /etc/claude-code: util::SystemConfigDir, util::ClaudeManagedDir) are a
// test's own folders: in a new mount namespace, the folders above them are
// overlaid (so that the paths can be made without touching the machine's
// /etc) and the test's folders bind-mounted on them. Nothing in the binary
// is switched: this is how the tests reach the system layer. Needs root (or
// CAP_SYS_ADMIN) and unshare(1); SystemRootUnavailable() says when not.
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "process.h"
#include "togmal/util/system_paths.h"

namespace togmal::testing {

/// Why a mount namespace cannot be made here ("" when it can).
inline std::string SystemRootUnavailable() {
  if (::geteuid() != 0) return "mount namespaces need root";
  auto probe = RunProcess({"unshare", "--mount", "--", "true"}, "", {}, std::chrono::seconds(20));
  if (probe.exit_code != 0) return "unshare --mount failed: " + probe.err;
  return {};
}

/// argv for RunProcess: `args` run with `system_dir` mounted on
/// util::SystemConfigDir() and `claude_dir` on util::ClaudeManagedDir().
/// `scratch` holds the overlays' work folders.
inline std::vector<std::string> InSystemRoot(const std::filesystem::path& scratch,
                                             const std::filesystem::path& system_dir,
                                             const std::filesystem::path& claude_dir,
                                             const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  const fs::path targets[] = {util::SystemConfigDir(), util::ClaudeManagedDir()};
  const fs::path sources[] = {system_dir, claude_dir};
  std::string script = "set -e\nmount --make-rprivate /\n";
  std::set<fs::path> overlaid;
  int n = 0;
  for (const fs::path& target : targets) {
    const fs::path parent = target.parent_path();
    if (overlaid.insert(parent).second) {
      const fs::path upper = scratch / ("upper" + std::to_string(n));
      const fs::path work = scratch / ("work" + std::to_string(n++));
      fs::create_directories(upper);
      fs::create_directories(work);
      script += "mount -t overlay overlay -o lowerdir=" + parent.string() +
                ",upperdir=" + upper.string() + ",workdir=" + work.string() + " " +
                parent.string() + "\n";
    }
  }
  for (int i = 0; i < 2; ++i) {
    script += "mkdir -p " + targets[i].string() + "\nmount --bind " + sources[i].string() + " " +
              targets[i].string() + "\n";
  }
  script += "exec \"$@\"\n";
  std::vector<std::string> argv = {"unshare", "--mount", "--", "sh", "-c", script, "sh"};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace togmal::testing
