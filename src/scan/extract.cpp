// The extractor for each file kind.
#include "togmal/scan/extractors.h"

namespace togmal::scan {

Extraction Extract(FileKind kind, std::string_view text, const Catalogue& catalogue) {
  switch (kind) {
    case FileKind::kShellScript:
      return ExtractShellScript(text);
    case FileKind::kGithubActions:
      return ExtractGithubActions(text, catalogue);
    case FileKind::kGitlabCi:
      return ExtractGitlabCi(text);
    case FileKind::kDockerfile:
      return ExtractDockerfile(text);
    case FileKind::kMakefile:
      return ExtractMakefile(text, catalogue);
    case FileKind::kPackageJson:
      return ExtractPackageJson(text);
    case FileKind::kPreCommitConfig:
      return ExtractPreCommitConfig(text);
    case FileKind::kDevcontainer:
      return ExtractDevcontainer(text);
    case FileKind::kNone:
      break;
  }
  return {};
}

}  // namespace togmal::scan
