#pragma once
/// One extractor per file format: each reads a file's text and returns the
/// shell text it will run with its line, never throwing; what cannot be
/// parsed becomes an Extraction problem. `text` is the whole file.

#include <string_view>

#include "togmal/scan/catalogue.h"
#include "togmal/scan/script_source.h"

namespace togmal::scan {

/// A shell script (`*.sh`, a sh/bash shebang, a git hook): the whole file.
Extraction ExtractShellScript(std::string_view text, std::string_view origin = "shell script");

/// A GitHub Actions workflow or composite action: every step's `run:`.
Extraction ExtractGithubActions(std::string_view text, const Catalogue& catalogue);

/// `.gitlab-ci.yml`: `script`, `before_script`, `after_script` of every job,
/// `default:` and the top level, as a string or a list.
Extraction ExtractGitlabCi(std::string_view text);

/// A Dockerfile: `RUN` in shell form (with continuations and heredocs) and
/// exec form.
Extraction ExtractDockerfile(std::string_view text);

/// A Makefile: every recipe line, prefixes `@`/`-`/`+` removed, make's
/// variables resolved as far as the file and make's built-ins say.
Extraction ExtractMakefile(std::string_view text, const Catalogue& catalogue);

/// `package.json`: every entry of `scripts`.
Extraction ExtractPackageJson(std::string_view text);

/// `.pre-commit-config.yaml`: the `entry:` of local hooks that run a system
/// command or a script.
Extraction ExtractPreCommitConfig(std::string_view text);

/// `devcontainer.json` (JSON with comments): the lifecycle commands.
Extraction ExtractDevcontainer(std::string_view text);

/// The extractor for `kind`.
Extraction Extract(FileKind kind, std::string_view text, const Catalogue& catalogue);

}  // namespace togmal::scan
